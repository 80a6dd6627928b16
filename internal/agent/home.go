package agent

import "os"

// Home is the folder an agent takes for the user's home: the agent's own
// environment variable override when it is set, else HOME, else the
// system's ("" when none is known).
func Home(getenv func(string) string, override string) string {
	if h := getenv(override); h != "" {
		return h
	}
	if h := getenv("HOME"); h != "" {
		return h
	}
	h, _ := os.UserHomeDir()
	return h
}
