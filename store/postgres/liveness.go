package postgres

import (
	"context"
	"crypto/tls"
	"net"
	"syscall"
	"time"

	"github.com/jackc/pgx/v5/stdlib"
)

// shouldPing is every pool's check before it hands out a connection
// again (stdlib.OptionShouldPing): pgx's own, a ping when the connection
// was idle for more than a second, and a ping when the server has
// written to an idle connection or closed it, which it does only to end
// it (a restart, a failover, pg_terminate_backend: a FATAL message, then
// the end of the stream). The ping then fails and database/sql takes
// another connection, where the statement sent on this one failed with
// the server's FATAL: every connection used within the last second
// failed one statement after a restart. Looking costs one non-blocking
// read of the socket, without a round trip.
func shouldPing(_ context.Context, p stdlib.ShouldPingParams) bool {
	return p.IdleDuration > time.Second || (p.Conn != nil && ended(p.Conn.PgConn().Conn()))
}

// ended reports whether the server has sent anything on c, or closed it,
// as far as a non-blocking look at its socket can tell (peekEnded); a
// connection whose socket it cannot look at is reported live.
func ended(c net.Conn) bool {
	if t, ok := c.(*tls.Conn); ok {
		c = t.NetConn()
	}
	sc, ok := c.(syscall.Conn)
	if !ok {
		return false
	}
	rc, err := sc.SyscallConn()
	if err != nil {
		return false
	}
	// Control, not Read: Read takes the socket's read lock, which pgx's
	// background reader holds while it waits on an idle socket after a
	// slow write, and would wait for it. The look neither reads nor
	// blocks, so it needs no lock.
	var gone bool
	if err := rc.Control(func(fd uintptr) {
		gone = peekEnded(fd)
	}); err != nil {
		return true
	}
	return gone
}
