// Package demo is the embedded in-process DynamoDB of --demo: minidyn's
// HTTP server on a loopback port, reached through the ordinary SDK client.
package demo

import (
	"fmt"
	"io"
	"log"
	"net"
	"net/http"
	"time"

	"github.com/truora/minidyn/server"
)

// Server is a running demo backend.
type Server struct {
	URL string
	srv *http.Server
}

// Start starts minidyn on a free loopback port.
func Start() (*Server, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, fmt.Errorf("start the demo backend: %w", err)
	}
	srv := &http.Server{
		Handler:           server.NewServer(),
		ReadHeaderTimeout: 10 * time.Second,
		// The default would log to stderr, which the TUI owns.
		ErrorLog: log.New(io.Discard, "", 0),
	}
	// Serve returns when Close shuts it down; a failure before that shows
	// up as failed calls in the client, which report it.
	go func() { _ = srv.Serve(ln) }()
	return &Server{URL: "http://" + ln.Addr().String(), srv: srv}, nil
}

// Close stops the demo backend; its tables are gone with it.
// It closes connections at once: the process is leaving, and Shutdown would
// wait for the client's idle keep-alive connections.
func (d *Server) Close() error { return d.srv.Close() }
