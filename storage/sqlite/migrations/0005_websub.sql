-- Issue 18: WebSub both ways. websub_subscriptions are Dynamo's
-- subscriptions to its sources' hubs, one per source; hub_subscriptions are
-- the subscriptions of others to Dynamo's own feeds, one per topic and
-- callback, with the delivery each is owed (pending_etag), leased to one
-- process at a time like a poll. Times are microseconds since the epoch.
CREATE TABLE websub_subscriptions (
    source_id     TEXT PRIMARY KEY,
    source_url    TEXT NOT NULL,
    hub           TEXT NOT NULL,
    topic         TEXT NOT NULL,
    state         TEXT NOT NULL,
    token         TEXT NOT NULL UNIQUE,
    secret        TEXT NOT NULL,
    lease_seconds INTEGER NOT NULL DEFAULT 0,
    lease_ends    INTEGER NOT NULL DEFAULT -62135596800000000,
    requested_at  INTEGER NOT NULL DEFAULT -62135596800000000,
    verified_at   INTEGER NOT NULL DEFAULT -62135596800000000,
    last_push     INTEGER NOT NULL DEFAULT -62135596800000000,
    pushes        INTEGER NOT NULL DEFAULT 0,
    attempts      INTEGER NOT NULL DEFAULT 0,
    last_error    TEXT NOT NULL DEFAULT '',
    next_action   INTEGER NOT NULL DEFAULT -62135596800000000
);
CREATE INDEX websub_subscriptions_next_action ON websub_subscriptions (next_action);

CREATE TABLE hub_subscriptions (
    id             INTEGER PRIMARY KEY AUTOINCREMENT,
    topic          TEXT NOT NULL,
    callback       TEXT NOT NULL,
    secret         TEXT NOT NULL,
    lease_seconds  INTEGER NOT NULL,
    expires        INTEGER NOT NULL,
    created_at     INTEGER NOT NULL,
    verified_at    INTEGER NOT NULL,
    delivered_etag TEXT NOT NULL DEFAULT '',
    pending_etag   TEXT NOT NULL DEFAULT '',
    attempts       INTEGER NOT NULL DEFAULT 0,
    next_attempt   INTEGER NOT NULL DEFAULT -62135596800000000,
    deliveries     INTEGER NOT NULL DEFAULT 0,
    failures       INTEGER NOT NULL DEFAULT 0,
    last_delivery  INTEGER NOT NULL DEFAULT -62135596800000000,
    last_error     TEXT NOT NULL DEFAULT '',
    lease_owner    TEXT NOT NULL DEFAULT '',
    lease_expires  INTEGER NOT NULL DEFAULT -62135596800000000,
    UNIQUE (topic, callback)
);
CREATE INDEX hub_subscriptions_pending ON hub_subscriptions (next_attempt) WHERE pending_etag <> '';
