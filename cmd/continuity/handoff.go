package main

import (
	"fmt"

	"github.com/spf13/cobra"

	"github.com/continuity-md/continuity/internal/core"
)

func newHandoffCmd(a *app) *cobra.Command {
	var transcript, name, agent string
	c := &cobra.Command{
		Use:   "handoff",
		Short: "Write a handoff now, from a transcript (the latest of this project by default)",
		Long: `Write a handoff now for the active work stream (or --stream), from --transcript or else the
newest transcript the host (--agent) keeps for this project.`,
		Args: exactArgs(0),
		RunE: func(cmd *cobra.Command, args []string) error {
			h, p, name, err := a.hostAndLedger(agent, name)
			if err != nil {
				return err
			}
			e := a.env(h)
			named := transcript != ""
			if transcript == "" {
				if transcript = core.LatestTranscript(e, p.Root); transcript == "" {
					fmt.Fprintln(a.errw, "continuity: no transcript of this project found; the handoff holds the ledger and git facts only")
				}
			}
			w, err := core.WriteHandoff(p, e, core.Request{Name: name, Event: "manual", Transcript: transcript,
				AgentSession: core.SessionOf(transcript), Named: named})
			if w.Read != "" {
				fmt.Fprintf(a.errw, "continuity: read %s: %s\n", transcript, w.Read)
			}
			if err != nil && w.Path == "" {
				return err
			}
			if err != nil {
				return err
			}
			if werr := w.Warning(); werr != nil {
				fmt.Fprintf(a.errw, "continuity: %v\n", werr)
			}
			if w.Path == "" { // the same as this session's last handoff
				fmt.Fprintf(a.errw, "continuity: %s\n", w.Message)
			}
			if a.json {
				return writeJSON(a.out, map[string]string{"path": w.Path, "transcript": transcript})
			}
			if w.Path != "" {
				fmt.Fprintf(a.out, "wrote %s\n", w.Path)
			}
			return nil
		},
	}
	c.Flags().StringVar(&transcript, "transcript", "", "the transcript (JSONL) to read")
	streamFlag(c, &name, "write it for this work stream instead of the active one", "ledger")
	c.Flags().StringVar(&agent, "agent", "", "the host whose transcript it is: "+hostNames()+" (default "+known[0].Name()+")")
	return c
}
