//go:build linux || darwin || freebsd || netbsd || openbsd || dragonfly

package postgres

import "syscall"

// peekEnded looks at the socket fd without reading from it or waiting:
// bytes waiting, the end of the stream or an error mean the server ended
// the connection (an idle connection's server sends nothing else
// unasked that this module listens for).
func peekEnded(fd uintptr) bool {
	var b [1]byte
	for {
		_, _, err := syscall.Recvfrom(int(fd), b[:], syscall.MSG_PEEK|syscall.MSG_DONTWAIT)
		switch err {
		case syscall.EINTR:
			continue
		case syscall.EAGAIN:
			return false
		}
		return true
	}
}
