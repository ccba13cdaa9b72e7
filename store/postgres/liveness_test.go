package postgres

import (
	"net"
	"testing"
	"time"
)

// TestEnded: the pool's look at a connection's socket tells an idle
// connection (nothing sent) from one the server wrote to or closed, and
// never waits, even while another goroutine is blocked reading the socket
// (pgx's background reader stays so after a slow write). The look once
// took the socket's read lock, which that reader holds, and a pool
// handing out such a connection waited for ever (seen under load: every
// call of a serve hung in the gate's tick).
func TestEnded(t *testing.T) {
	pair := func(t *testing.T) (client, server net.Conn) {
		t.Helper()
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		defer ln.Close()
		accepted := make(chan net.Conn, 1)
		go func() {
			c, _ := ln.Accept()
			accepted <- c
		}()
		client, err = net.Dial("tcp", ln.Addr().String())
		if err != nil {
			t.Fatal(err)
		}
		server = <-accepted
		if server == nil {
			t.Fatal("accept failed")
		}
		t.Cleanup(func() { client.Close(); server.Close() })
		return client, server
	}
	// within runs ended(c) and fails the test if it waits.
	within := func(t *testing.T, c net.Conn) bool {
		t.Helper()
		done := make(chan bool, 1)
		go func() { done <- ended(c) }()
		select {
		case got := <-done:
			return got
		case <-time.After(5 * time.Second):
			t.Fatal("ended waited 5 s")
			return false
		}
	}
	t.Run("idle", func(t *testing.T) {
		c, _ := pair(t)
		if within(t, c) {
			t.Error("an idle connection is reported ended")
		}
	})
	t.Run("written", func(t *testing.T) {
		c, s := pair(t)
		s.Write([]byte("E"))
		time.Sleep(50 * time.Millisecond)
		if !within(t, c) {
			t.Error("a connection the server wrote to is reported live")
		}
		// Looking reads nothing.
		b := make([]byte, 1)
		c.SetReadDeadline(time.Now().Add(time.Second))
		if n, err := c.Read(b); n != 1 || b[0] != 'E' {
			t.Errorf("after looking, the connection reads %q, %v", b[:n], err)
		}
	})
	t.Run("closed", func(t *testing.T) {
		c, s := pair(t)
		s.Close()
		time.Sleep(50 * time.Millisecond)
		if !within(t, c) {
			t.Error("a connection the server closed is reported live")
		}
	})
	t.Run("reader blocked", func(t *testing.T) {
		c, s := pair(t)
		go c.Read(make([]byte, 1)) // returns when the test ends
		time.Sleep(50 * time.Millisecond)
		if within(t, c) {
			t.Error("an idle connection with a blocked reader is reported ended")
		}
		s.Write([]byte("x"))
	})
}
