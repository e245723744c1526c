package postgres

import (
	"context"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/dynamo-feeds/dynamo"
)

// Reconnection back-off of WatchChanges: from watchMinWait, doubling up to
// watchMaxWait while the server stays away.
const (
	watchMinWait = 100 * time.Millisecond
	watchMaxWait = 5 * time.Second
)

// WatchChanges listens on ChangeChannel on a connection of its own, which
// sees the changes of every process sharing the database. When that
// connection drops (a server restart) it reconnects with back-off and, since
// notifications sent meanwhile are lost, reports every collection as
// changed. The channel closes when ctx ends or the store closes.
func (s *Store) WatchChanges(ctx context.Context) (<-chan dynamo.Change, error) {
	conn, err := s.listen(ctx)
	if err != nil {
		return nil, fmt.Errorf("watch changes: %w", err)
	}
	ctx, cancel := context.WithCancel(ctx)
	go func() {
		select {
		case <-s.done:
		case <-ctx.Done():
		}
		cancel()
	}()
	ch := make(chan dynamo.Change, 64)
	go s.watch(ctx, conn, ch)
	return ch, nil
}

// listen opens a connection with the pool's settings and LISTENs on it.
func (s *Store) listen(ctx context.Context) (*pgx.Conn, error) {
	conn, err := pgx.ConnectConfig(ctx, s.pool.Config().ConnConfig.Copy())
	if err != nil {
		return nil, fmt.Errorf("connect: %w", err)
	}
	if _, err := conn.Exec(ctx, "LISTEN "+pgx.Identifier{ChangeChannel}.Sanitize()); err != nil {
		conn.Close(context.Background())
		return nil, fmt.Errorf("listen: %w", err)
	}
	return conn, nil
}

func (s *Store) watch(ctx context.Context, conn *pgx.Conn, ch chan<- dynamo.Change) {
	defer close(ch)
	for {
		forward(ctx, conn, ch)
		conn.Close(context.Background())
		if conn = s.reconnect(ctx, ch); conn == nil {
			return
		}
	}
}

// forward sends each notification on ch until the connection fails or ctx
// ends; either way the caller reconnects or stops, so the error itself is
// of no use.
func forward(ctx context.Context, conn *pgx.Conn, ch chan<- dynamo.Change) {
	for {
		n, err := conn.WaitForNotification(ctx)
		if err != nil {
			return
		}
		select {
		case ch <- dynamo.Change{SourceID: n.Payload}:
		case <-ctx.Done():
			return
		}
	}
}

// reconnect listens again, waiting longer after each failure, and then
// reports every collection as changed, since notifications sent while the
// connection was down are lost. It returns nil when ctx ends first.
func (s *Store) reconnect(ctx context.Context, ch chan<- dynamo.Change) *pgx.Conn {
	for wait := watchMinWait; ; wait = min(2*wait, watchMaxWait) {
		timer := time.NewTimer(wait)
		select {
		case <-ctx.Done():
			timer.Stop()
			return nil
		case <-timer.C:
		}
		conn, err := s.listen(ctx)
		if err != nil {
			continue
		}
		all, err := s.Collections(ctx)
		if err != nil {
			conn.Close(context.Background())
			continue
		}
		for _, src := range all {
			select {
			case ch <- dynamo.Change{SourceID: src.ID}:
			case <-ctx.Done():
				conn.Close(context.Background())
				return nil
			}
		}
		return conn
	}
}
