package main

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"os/signal"
	"strconv"
	"syscall"
	"time"

	"github.com/spf13/cobra"

	"github.com/continuity-md/continuity/internal/web"
)

type serveOptions struct {
	Port int // 0: any free port
}

func newServeCmd(a *app) *cobra.Command {
	var o serveOptions
	c := &cobra.Command{
		Use:   "serve",
		Short: "A local read-only web view of the timeline, streams and handoffs",
		Long: `Serve a read-only web view of this repository's work on http://127.0.0.1:PORT/ (this machine
only): the timeline of handoffs (filter by stream, author, agent, time), each stream's ledger and
handoffs, each handoff, and search. It prints its address and runs until interrupted (Ctrl-C).
Nothing is fetched from the network and no script runs; secrets are redacted as everywhere else.`,
		Example: `  continuity serve
  continuity serve --port 7777`,
		Args: exactArgs(0),
		RunE: func(cmd *cobra.Command, args []string) error {
			return a.runWith(o, func() error {
				ctx, stop := signal.NotifyContext(cmd.Context(), syscall.SIGINT, syscall.SIGTERM)
				defer stop()
				return runServe(ctx, a, o)
			})
		},
	}
	c.Flags().IntVar(&o.Port, "port", 0, "the port to listen on (default: any free one)")
	return c
}

// runServe serves until ctx ends.
func runServe(ctx context.Context, a *app, o serveOptions) error {
	if o.Port < 0 || o.Port > 65535 {
		return usageError{Err: fmt.Errorf("--port must be between 0 and 65535, got %d", o.Port)}
	}
	p, err := a.project()
	if err != nil {
		return err
	}
	ln, err := net.Listen("tcp", net.JoinHostPort("127.0.0.1", strconv.Itoa(o.Port)))
	if err != nil {
		return fmt.Errorf("serve: %w", err)
	}
	host := ln.Addr().String()
	srv := &http.Server{Handler: web.New(p, host, a.now).Handler(), ReadHeaderTimeout: 10 * time.Second}
	fmt.Fprintf(a.out, "continuity: serving %s read-only on http://%s/ (Ctrl-C to stop)\n", p.Root, host)
	done := make(chan error, 1)
	go func() { done <- srv.Serve(ln) }()
	select {
	case err := <-done:
		return fmt.Errorf("serve: %w", err)
	case <-ctx.Done():
		shut, cancel := context.WithTimeout(context.Background(), 2*time.Second)
		defer cancel()
		if err := srv.Shutdown(shut); err != nil && !errors.Is(err, http.ErrServerClosed) {
			return fmt.Errorf("serve: %w", err)
		}
		return nil
	}
}
