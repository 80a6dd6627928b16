//go:build ignore

// gen writes corpus.txtar: FAKE secrets of every kind internal/redact
// knows, each in the line of text it would appear in, with the secret
// between « and ». The values are random (fixed seed), shaped like the real
// thing, and belong to no account.
//
//	go run ./testdata/secrets/gen.go > testdata/secrets/corpus.txtar
package main

import (
	"encoding/base64"
	"encoding/hex"
	"fmt"
	"math/rand/v2"
	"os"
	"strings"
)

var rng = rand.New(rand.NewPCG(20261122, 4))

const (
	upper  = "ABCDEFGHIJKLMNOPQRSTUVWXYZ"
	lower  = "abcdefghijklmnopqrstuvwxyz"
	digits = "0123456789"
	alnum  = upper + lower + digits
	b64    = alnum + "+/"
	b64url = alnum + "-_"
)

func pick(set string, n int) string {
	b := make([]byte, n)
	for i := range b {
		b[i] = set[rng.IntN(len(set))]
	}
	return string(b)
}

func randBytes(n int) []byte {
	b := make([]byte, n)
	for i := range b {
		b[i] = byte(rng.IntN(256))
	}
	return b
}

func pem(kind string, lines int, sep string) string {
	body := base64.StdEncoding.EncodeToString(randBytes(48 * lines))
	var parts []string
	parts = append(parts, "-----BEGIN "+kind+"-----")
	for len(body) > 64 {
		parts = append(parts, body[:64])
		body = body[64:]
	}
	parts = append(parts, body, "-----END "+kind+"-----")
	return strings.Join(parts, sep)
}

func jwt() string {
	enc := base64.RawURLEncoding
	h := enc.EncodeToString([]byte(`{"alg":"HS256","typ":"JWT"}`))
	p := enc.EncodeToString([]byte(fmt.Sprintf(`{"sub":"user-%d","role":"admin","iat":1795000000,"exp":1795003600}`, rng.IntN(100000))))
	return h + "." + p + "." + enc.EncodeToString(randBytes(32))
}

func main() {
	type entry struct{ kind, text string }
	s := func(v string) string { return "«" + v + "»" }
	entries := []entry{
		{"aws-access-key", "aws_access_key_id = " + s("AKIA"+pick(upper+"234567", 16))},
		{"aws-access-key", "export AWS_ACCESS_KEY_ID=" + s("ASIA"+pick(upper+"234567", 16))},
		{"aws-secret-key", "aws_secret_access_key = " + s(pick(b64, 40))},
		{"aws-secret-key", `export AWS_SECRET_ACCESS_KEY="` + s(pick(b64, 40)) + `"`},
		{"aws-secret-key", `"SecretAccessKey": "` + s(pick(b64, 40)) + `",`},
		{"gcp-api-key", "curl 'https://maps.googleapis.com/maps/api/geocode/json?address=Berlin&key=" + s("AIza"+pick(b64url, 35)) + "'"},
		{"gcp-service-account-key", "{\n  \"type\": \"service_account\",\n  \"project_id\": \"acme-prod-4821\",\n  \"private_key_id\": \"" + hex.EncodeToString(randBytes(20)) +
			"\",\n  \"private_key\": \"" + s(pem("PRIVATE KEY", 20, `\n`)) + "\\n\",\n  \"client_email\": \"deployer@acme-prod-4821.iam.gserviceaccount.com\"\n}"},
		{"azure-storage-key", "DefaultEndpointsProtocol=https;AccountName=acmeprodstore;AccountKey=" + s(base64.StdEncoding.EncodeToString(randBytes(64))) + ";EndpointSuffix=core.windows.net"},
		{"github-token", "GITHUB_TOKEN=" + s("ghp_"+pick(alnum, 36))},
		{"github-token", "git clone https://x-access-token:" + s("ghs_"+pick(alnum, 36)) + "@github.com/acme/app.git /tmp/app"},
		{"github-token", "gh auth status shows token " + s("gho_"+pick(alnum, 36))},
		{"github-fine-grained-token", "echo " + s("github_pat_"+pick(alnum, 22)+"_"+pick(alnum, 59)) + " | gh auth login --with-token"},
		{"gitlab-token", `curl --header "PRIVATE-TOKEN: ` + s("glpat-"+pick(b64url, 20)) + `" https://gitlab.example.com/api/v4/projects`},
		{"slack-token", "SLACK_BOT_TOKEN=" + s(fmt.Sprintf("xoxb-%d-%d-%s", 100000000000+rng.IntN(900000000000), 1000000000000+rng.IntN(9000000000000), pick(alnum, 24)))},
		{"slack-token", "slack.WebClient(token=\"" + s(fmt.Sprintf("xoxp-%d-%d-%d-%s", 100000000000+rng.IntN(900000000000), 100000000000+rng.IntN(900000000000), 1000000000000+rng.IntN(9000000000000), hex.EncodeToString(randBytes(16)))) + "\")"},
		{"slack-webhook", `curl -X POST -H 'Content-type: application/json' --data '{"text":"deployed v1.4.2"}' https://hooks.slack.com/services/` + s("T0"+pick(upper+digits, 8)+"/B0"+pick(upper+digits, 8)+"/"+pick(alnum, 24))},
		{"stripe-key", `stripe.api_key = "` + s("sk_live_"+pick(alnum, 99)) + `"`},
		{"stripe-key", "STRIPE_RESTRICTED_KEY=" + s("rk_live_"+pick(alnum, 99))},
		{"stripe-key", "stripe listen --api-key " + s("sk_test_"+pick(alnum, 99)) + " --forward-to localhost:4242/webhook"},
		{"openai-key", "OPENAI_API_KEY=" + s("sk-proj-"+pick(b64url, 74)+"T3BlbkFJ"+pick(b64url, 74))},
		{"openai-key", "client = OpenAI(api_key='" + s("sk-"+pick(alnum, 20)+"T3BlbkFJ"+pick(alnum, 20)) + "')"},
		{"anthropic-key", "ANTHROPIC_API_KEY=" + s("sk-ant-api03-"+pick(b64url, 93)+"AA")},
		{"anthropic-key", `client = anthropic.Anthropic(api_key="` + s("sk-ant-admin01-"+pick(b64url, 93)+"AA") + `")`},
		{"private-key", "$ cat ~/.ssh/deploy_key\n" + s(pem("OPENSSH PRIVATE KEY", 6, "\n")) + "\n"},
		{"private-key", "$ cat config/tls/server.key\n" + s(pem("RSA PRIVATE KEY", 24, "\n")) + "\n"},
		{"private-key", "key := []byte(\"" + s(pem("EC PRIVATE KEY", 3, `\n`)) + "\\n\")"},
		{"jwt", "Authorization: Bearer " + s(jwt())},
		{"jwt", "document.cookie = \"session=" + s(jwt()) + "; Path=/; Secure\""},
		{"url-password", "DATABASE_URL=postgres://app:" + s(pick(alnum, 16)) + "@db.internal:5432/app?sslmode=disable"},
		{"url-password", "redis-cli -u redis://default:" + s(pick(alnum, 12)+"!x") + "@cache.internal:6379/0 ping"},
		{"url-password", "docker login https://deploy:" + s(pick(alnum, 20)) + "@registry.acme.dev/v2/"},
		{"env-secret", "DB_PASSWORD=" + s("Tr0ub4dor&"+pick(digits, 3))},
		{"env-secret", "export API_TOKEN='" + s(pick(alnum, 10)) + "'"},
		{"env-secret", "  client_secret: " + s(pick(alnum+"-_", 28))},
		{"env-secret", `SESSION_SECRET="` + s("blue-"+pick(digits, 4)+"-harbor") + `"`},
		{"env-secret", "REDIS_PASS=" + s(pick(lower+digits, 12))},
		{"env-secret", `{"db_password": "` + s("p4ss-"+pick(alnum, 8)) + `", "db_user": "app"}`},
		{"env-secret", "ENCRYPTION_KEY=" + s(base64.StdEncoding.EncodeToString(randBytes(32)))},
		{"generic-secret", "the deploy token is " + s(pick(alnum, 32))},
		{"generic-secret", "./bin/release --token " + s(pick(alnum, 40)) + " --channel stable"},
		{"generic-secret", `curl -H "Authorization: Bearer ` + s(pick(alnum, 48)) + `" https://api.acme.dev/v1/builds`},
	}
	fmt.Print("FAKE secrets for internal/redact's tests, written by gen.go (go run ./testdata/secrets/gen.go).\n" +
		"Each file is one line of text holding one secret between « and »; its name starts with the kind.\n" +
		"None of these values is or was a real credential.\n")
	n := map[string]int{}
	for _, e := range entries {
		n[e.kind]++
		fmt.Printf("-- %s/%d --\n%s\n", e.kind, n[e.kind], e.text)
	}
	_ = os.Stdout.Sync()
}
