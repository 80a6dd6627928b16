package claude

// ClientNames are the command names of Claude Code's client process: the
// native binary, as the native installer names it (claude) and as the npm
// package ships it (claude.exe, on every platform). A hook finds it as the
// client even at a session's start, when it is younger than a second: a
// session killed in its first turn ran SessionStart alone before it died,
// and the terminal above the client would outlive it.
func (Host) ClientNames() []string { return []string{"claude", "claude.exe"} }
