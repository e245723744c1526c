-- Issue 18: WebSub both ways. websub_subscriptions are Dynamo's
-- subscriptions to its sources' hubs, one per source; hub_subscriptions are
-- the subscriptions of others to Dynamo's own feeds, one per topic and
-- callback, with the delivery each is owed (pending_etag), leased to one
-- process at a time like a poll.
CREATE TABLE websub_subscriptions (
    source_id     text PRIMARY KEY,
    source_url    text NOT NULL,
    hub           text NOT NULL,
    topic         text NOT NULL,
    state         text NOT NULL,
    token         text NOT NULL UNIQUE,
    secret        text NOT NULL,
    lease_seconds integer NOT NULL DEFAULT 0,
    lease_ends    timestamptz NOT NULL DEFAULT '0001-01-01 00:00:00+00',
    requested_at  timestamptz NOT NULL DEFAULT '0001-01-01 00:00:00+00',
    verified_at   timestamptz NOT NULL DEFAULT '0001-01-01 00:00:00+00',
    last_push     timestamptz NOT NULL DEFAULT '0001-01-01 00:00:00+00',
    pushes        integer NOT NULL DEFAULT 0,
    attempts      integer NOT NULL DEFAULT 0,
    last_error    text NOT NULL DEFAULT '',
    next_action   timestamptz NOT NULL DEFAULT '0001-01-01 00:00:00+00'
);
CREATE INDEX websub_subscriptions_next_action ON websub_subscriptions (next_action);

CREATE TABLE hub_subscriptions (
    id             bigserial PRIMARY KEY,
    topic          text NOT NULL,
    callback       text NOT NULL,
    secret         text NOT NULL,
    lease_seconds  integer NOT NULL,
    expires        timestamptz NOT NULL,
    created_at     timestamptz NOT NULL,
    verified_at    timestamptz NOT NULL,
    delivered_etag text NOT NULL DEFAULT '',
    pending_etag   text NOT NULL DEFAULT '',
    attempts       integer NOT NULL DEFAULT 0,
    next_attempt   timestamptz NOT NULL DEFAULT '0001-01-01 00:00:00+00',
    deliveries     integer NOT NULL DEFAULT 0,
    failures       integer NOT NULL DEFAULT 0,
    last_delivery  timestamptz NOT NULL DEFAULT '0001-01-01 00:00:00+00',
    last_error     text NOT NULL DEFAULT '',
    lease_owner    text NOT NULL DEFAULT '',
    lease_expires  timestamptz NOT NULL DEFAULT '0001-01-01 00:00:00+00',
    UNIQUE (topic, callback)
);
CREATE INDEX hub_subscriptions_pending ON hub_subscriptions (next_attempt) WHERE pending_etag <> '';
