package redact

import (
	"encoding/base64"
	"strings"
	"testing"
)

// classCase is one shape of one class: in holds a fake secret; every gone
// string must disappear and every kept string must survive.
type classCase struct {
	shape string
	in    string
	gone  []string
	kept  []string
}

func checkClass(t *testing.T, class string, cases []classCase) {
	t.Helper()
	for _, c := range cases {
		out, fs := Redact(c.in)
		for _, g := range c.gone {
			if strings.Contains(out, g) {
				t.Errorf("%s/%s: %q survived in %q (findings %v)", class, c.shape, g, out, fs)
			}
		}
		for _, k := range c.kept {
			if !strings.Contains(out, k) {
				t.Errorf("%s/%s: %q was lost: %q", class, c.shape, k, out)
			}
		}
		if len(c.gone) > 0 && !strings.Contains(out, "[REDACTED:") {
			t.Errorf("%s/%s: no marker in %q", class, c.shape, out)
		}
	}
}

// checkClean wants each input unchanged: ordinary text shaped like a
// secret's neighbourhood.
func checkClean(t *testing.T, class string, ins []string) {
	t.Helper()
	for _, in := range ins {
		if out, fs := Redact(in); out != in {
			t.Errorf("%s: false positive %v:\n in: %q\nout: %q", class, fs, in, out)
		}
	}
}

func b64(s string) string { return base64.StdEncoding.EncodeToString([]byte(s)) }

func TestClassHTTPHeaders(t *testing.T) {
	checkClass(t, "http", []classCase{
		{"basic", "Authorization: Basic " + b64("deploy:s3cret-pass"), []string{b64("deploy:s3cret-pass")}, []string{"Authorization: Basic "}},
		{"bearer in curl", `curl -H "Authorization: Bearer 8f2kQ9xLm3Zp0aRt7vWy" https://api.example.com/v1`, []string{"8f2kQ9xLm3Zp0aRt7vWy"}, []string{"https://api.example.com/v1"}},
		{"token scheme", "Authorization: token 0123456789abcdef0123456789abcdef01234567", []string{"0123456789abcdef0123456789abcdef01234567"}, nil},
		{"x-api-key uuid", "curl -H 'X-API-Key: 3b241101-e2bb-4255-8caf-4136c566a962' https://x.example.com", []string{"3b241101-e2bb-4255-8caf-4136c566a962"}, []string{"X-API-Key: "}},
		{"json header map", `{"headers": {"x-auth-token": "tok9Ah2kLq0ZxW"}}`, []string{"tok9Ah2kLq0ZxW"}, []string{`"x-auth-token": "`}},
		{"private-token", "PRIVATE-TOKEN: zz8Kq1Lm2Nx3", []string{"zz8Kq1Lm2Nx3"}, nil},
		{"json-escaped", `{"command":"curl -H \"Authorization: Basic ` + b64("ci:Qw3rty!9") + `\" https://ci"}`, []string{b64("ci:Qw3rty!9")}, []string{`\" https://ci"}`}},
	})
	checkClean(t, "http", []string{
		`req.Header.Set("Authorization", "Bearer "+token)`,
		"Authorization: Bearer <token>",
		"Authorization: Bearer $GITHUB_TOKEN",
		"Authorization: Basic " + b64("thisisalongstring"),
		`"Authorization": req.Header["Proxy-Authorization"],`,
	})
}

func TestClassCommandLine(t *testing.T) {
	checkClass(t, "cli", []classCase{
		{"curl -u", "curl -u admin:S3cr3t#Pa55 https://ci.example.com", []string{"S3cr3t#Pa55"}, []string{"curl -u admin:", " https://ci.example.com"}},
		{"curl --user quoted", "curl --user 'bob:hunter2:x' -X POST https://x", []string{"hunter2:x"}, []string{"bob:"}},
		{"mysql -p attached", "mysql -uroot -pXy9Lm2Qz app", []string{"Xy9Lm2Qz"}, []string{" app"}},
		{"mysql -p quoted spaces", "mysql -u root -p'two words here' app", []string{"two words here"}, []string{" app"}},
		{"sshpass", "sshpass -p 'p@ss w0rd' ssh deploy@host", []string{"p@ss w0rd"}, []string{"ssh deploy@host"}},
		{"--password X", "mongodump --password S3cure!x --out /tmp", []string{"S3cure!x"}, []string{"--out /tmp"}},
		{"--password=X", "mysqldump --password=S3cure!x app", []string{"S3cure!x"}, nil},
		{"--token", "gh-release --token abcd1234efgh --draft", []string{"abcd1234efgh"}, []string{"--draft"}},
		{"PGPASSWORD", "PGPASSWORD=plainpassphrase psql -h db -U app", []string{"plainpassphrase"}, []string{"psql -h db -U app"}},
		{"redis-cli -a", "redis-cli -h cache -a Zq9wXv2Lm ping", []string{"Zq9wXv2Lm"}, []string{" ping"}},
	})
	checkClean(t, "cli", []string{
		"mysql -u root -p mydb",
		"docker run -p 8080:80 nginx",
		"ssh -p 2222 deploy@host",
		"git push -u origin main",
		"echo $T | docker login -u me --password-stdin",
		"./release --token-file ./token.txt",
		"mysql --password=$DB_PASSWORD app",
		"curl -u $USER:$PASS https://x",
		"sort -u names.txt",
	})
}

func TestClassURLs(t *testing.T) {
	checkClass(t, "url", []classCase{
		{"# and @", "git clone https://bob:p#ss@w0rd@git.example.com/repo.git", []string{"p#ss@w0rd"}, []string{"https://bob:", "@git.example.com/repo.git"}},
		{"% and :", "postgres://u:pa%40ss:word@db:5432/x", []string{"pa%40ss:word"}, []string{"postgres://u:", "@db:5432/x"}},
		{"empty user", "redis://:Zx81q9Lm@cache:6379/0", []string{"Zx81q9Lm"}, []string{"redis://:", "@cache:6379/0"}},
		{"scheme-less proxy", "proxy=alice:Zx81!q@proxy.example.com:3128", []string{"Zx81!q"}, []string{"alice:", "@proxy.example.com:3128"}},
		{"go mysql dsn", `dsn := "app:Kd92ms0@tcp(db:3306)/app"`, []string{"Kd92ms0"}, []string{"@tcp(db:3306)/app"}},
		{"sas in a JSON string", `"url": "https://acme.blob.core.windows.net/b/db.bak?sv=2022-11-02\u0026sp=rl\u0026sig=9krSs6a3r2hFHcRnC7iRFduP1N74c%2FqfDw0OZBTpwfk%3D"`,
			[]string{"9krSs6a3r2hF", "0OZBTpwfk"}, []string{`\u0026sp=rl`}},
	})
	checkClean(t, "url", []string{
		"git remote add origin git@github.com:acme/app.git",
		"FROM alpine:3.19@sha256:1f2a9c1d0e8b7a6f5e4d3c2b1a0f9e8d7c6b5a4f1f2a9c1d0e8b7a6f5e4d3c2b",
		"mailto:bob@example.com",
		`sans: []string{"email:foo@example.com"}`,
		"https://example.com/@user/status/1",
		"go get golang.org/x/mod@v0.20.0",
		"postgres://app@db.internal:5432/app",
		"https://user:${DB_PASS}@db.internal/app",
	})
}

func TestClassAssignments(t *testing.T) {
	long := strings.Repeat("Ab3xY9", 120) // 720 characters
	checkClass(t, "assign", []classCase{
		{"plain passphrase", "DB_PASSWORD=correcthorsebattery", []string{"correcthorsebattery"}, []string{"DB_PASSWORD="}},
		{"quoted with spaces", `DB_PASSWORD="correct horse battery"`, []string{"correct horse battery", "horse"}, []string{`DB_PASSWORD="`}},
		{"uuid api key", "STRIPE_API_KEY=3b241101-e2bb-4255-8caf-4136c566a962", []string{"3b241101"}, nil},
		{"yaml uuid api key", "api_key: 3b241101-e2bb-4255-8caf-4136c566a962", []string{"3b241101"}, []string{"api_key: "}},
		{"yaml password word", "  password: rosebud-castle", []string{"rosebud"}, []string{"password: "}},
		{"json", `{"db_password": "p4ss-Xy2", "db_user": "app"}`, []string{"p4ss-Xy2"}, []string{`"db_user": "app"`}},
		{"600+ bare", "SIGNING_SECRET=" + long + " next", []string{long[:12], long[300:312], long[len(long)-12:]}, []string{" next"}},
		{"600+ quoted", `"token": "` + long + `", "x": 1`, []string{long[len(long)-12:]}, []string{`", "x": 1`}},
		{"600+ in JSON line", `{"content":"a\nDEPLOY_TOKEN=` + long + `\nb"}`, []string{long[len(long)-12:]}, []string{`\nb"}`}},
		// Beside the identifiers spared below, the credentials stay caught.
		{"signer key beside a verifier key", `skey := "PRIVATE+KEY+PeterNeumann+c74f20a3+AYEKFALVFGyNhPJEMzD1QIDr+Y7hfZx09iUvxdXHKDFz"`, []string{"AYEKFALVFGyNhPJEMzD1QIDr"}, nil},
		{"master-key", "master-key=AHAZQqG84qllx7HUqO_oou5EvdYQNS3Mbbkb0Rjj", []string{"AHAZQqG84qllx7HUqO"}, nil},
		{"blob of a secret key", "secret_key = AHAZQqG84qllx7HUqO_oou5EvdYQNS3Mbbkb0Rjj", []string{"AHAZQqG84qllx7HUqO"}, nil},
		{"token with a star", `token: "abc*Def9xy2"`, []string{"abc*Def9xy2"}, nil},
		{"password with a star", "password = abc*Def9xy2", []string{"abc*Def9xy2"}, nil},
	})
	checkClean(t, "assign", []string{
		"idempotency_key: 123e4567-e89b-12d3-a456-426614174000",
		"cache_key = 3f2a9c1d0e8b7a6f5e4d3c2b1a0f9e8d7c6b5a4f",
		"max_tokens: 4096",
		`password := os.Getenv("DB_PASSWORD")`,
		"token := s.cache.Get(key)",
		`cmd.Env = append(cmd.Env, "PWD="+dir)`,
		"PUBLIC_KEY=MFkwEwYHKoZIzj0CAQYIKoZIzj0DAQcDQgAE4f5wg5l2hKsTeNem",
		"SSH_KEY=~/.ssh/id_ed25519",
		"password: hunter",
		"gp.sig = _SIGSEGV",
		"DB_PASSWORD=${DB_PASSWORD}",
		// Found on the Go standard library: ids and public keys under *key
		// names, and a grammar rule under a token's name.
		"Content-Type: message/external-body; charset=ISO-8859-1; blob-key=AHAZQqG84qllx7HUqO_oou5EvdYQNS3Mbbkb0RjjBoM_Kc1UqEN2ygDxWiyCPulIhpHRPx",
		`testSumDBVerifierKey = "localhost.localdev/sumdb+00000c67+AcTrnkbUA+TU4heY3hkjiSES/DSQniBqIeQ/YppAUtK6"`,
		`vkey := "PeterNeumann+c74f20a3+ARpc2QcUPDhMQegwxbzhKqiBfsVkmqq/LDE4izWy10TW"`,
		"//	token = 1*tchar",
		"partition_key: AHAZQqG84qllx7HUqO_oou5EvdYQNS3Mbbkb0Rjj",
		"bucket_key: uploads/2026/AHAZQqG84qllx7HUqO_oou5EvdYQNS3",
		"schema-key=AHAZQqG84qllx7HUqO_oou5EvdYQNS3Mbbkb0Rjj",
	})
}

func TestClassProse(t *testing.T) {
	hex64 := strings.Repeat("3f2a9c1d", 8)
	checkClass(t, "prose", []classCase{
		{"secret is hex64", "the webhook secret is " + hex64, []string{hex64}, []string{"the webhook secret is "}},
		{"token is", "my API token is Zq81mv02xkLp39Rt77Yw", []string{"Zq81mv02xkLp39Rt77Yw"}, nil},
	})
	checkClean(t, "prose", []string{
		"commit " + hex64[:40] + " fixed it",
		"sha256: " + hex64,
		"the cache key is " + hex64,
		"the token is in 1Password, ask Kim",
	})
}

func TestClassBase64(t *testing.T) {
	tok := "ghp_" + strings.Repeat("aB3", 12)
	checkClass(t, "base64", []classCase{
		{"token", "echo " + b64(tok) + " | base64 -d", []string{b64(tok)}, []string{" | base64 -d"}},
		{"user:password", "echo " + b64("ci-bot:Xk29vLq8") + " | base64 --decode", []string{b64("ci-bot:Xk29vLq8")}, nil},
		{"docker auth", `{"auths":{"r.example.com":{"auth":"` + b64("acme:Zp9xQw2Lm") + `"}}}`, []string{b64("acme:Zp9xQw2Lm")}, []string{`"auth":"`}},
		{"url-safe", "tok=" + base64.RawURLEncoding.EncodeToString([]byte(tok)) + " end", []string{base64.RawURLEncoding.EncodeToString([]byte(tok))}, []string{" end"}},
	})
	checkClean(t, "base64", []string{
		"data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==",
		"golang.org/x/mod v0.20.0 h1:utOm6MM3R3dnawAISJgykvjFNTcVz0JXqQq7Fm+Lcqs=",
		"echo SGVsbG8sIHdvcmxkISBUaGlzIGlzIGp1c3QgdGV4dC4= | base64 -d",
		"TestRedactTwiceIsOnceWithManyWordsInIt and internal/redact/redact_test.go",
	})
}

func TestClassProviders(t *testing.T) {
	// One per table entry is in the corpus (TestCorpusRecall); these are
	// the neighbours that must not be taken for one.
	checkClean(t, "provider", []string{
		"see the task-description-for-the-thing and risk-assessment-2024-final-v2",
		"sk-this-is-not-a-key-just-words",
		"hf_hub_download(repo_id=...)",
		"npm_config_cache=/tmp/npm",
		"s.Token() and s.Secret()",
		"x.sig = sign(hash)",
		"rk_test_connection_pool()",
		"ya29 is a prefix",
		"SG.Send(msg)",
	})
	checkClass(t, "provider", []classCase{
		{"telegram in a bot URL", "https://api.telegram.org/bot123456789:AA" + strings.Repeat("x1Y", 11) + "/getMe", []string{"AA" + strings.Repeat("x1Y", 11)}, []string{"/getMe"}},
		{"vault legacy", "VAULT_TOKEN=s.Ab12Cd34Ef56Gh78Ij90Kl12", []string{"s.Ab12Cd34Ef56Gh78Ij90Kl12"}, nil},
	})
}

func TestShortStrings(t *testing.T) {
	tok := "ghp_" + strings.Repeat("aB3", 12)
	if !Contains("failed: " + tok) {
		t.Error("Contains missed a token")
	}
	if Contains("go test ./internal/auth/...") {
		t.Error("Contains found a secret in a command")
	}
	if got := String("error: bad credentials for " + tok); got != "error: bad credentials for [REDACTED:github-token]" {
		t.Errorf("String = %q", got)
	}
	for _, tc := range []struct {
		id   string
		keep bool
	}{
		{"7c9e6679-7425-40de-944b-e07fc1f97e4d", true},
		{"secret-03", true},
		{"main", true},
		{tok, false},
		{"Zq81mv02xkLp39Rt77YwQa5", false}, // random: a credential or not, it does not name a file
		{"../../etc/passwd", false},
		{"", false},
	} {
		got := SafeName(tc.id)
		if (got == tc.id) != tc.keep {
			t.Errorf("SafeName(%q) = %q, keep %v", tc.id, got, tc.keep)
		}
		if got != SafeName(tc.id) || !plainName(got) {
			t.Errorf("SafeName(%q) = %q: not stable or not a plain name", tc.id, got)
		}
	}
}
