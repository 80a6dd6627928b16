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

type entry struct{ kind, text string }

func s(v string) string { return "«" + v + "»" }

func enc64(v string) string { return base64.StdEncoding.EncodeToString([]byte(v)) }

func hexs(n int) string { return pick("0123456789abcdef", n) }

func uuid() string {
	return hexs(8) + "-" + hexs(4) + "-4" + hexs(3) + "-a" + hexs(3) + "-" + hexs(12)
}

// shapes are the places a credential sits whatever its format: headers,
// command-line flags, URLs, assignments, prose and base64.
func shapes() []entry {
	pw := func() string {
		return pick(alnum, 6) + "#" + pick(alnum, 3) + "@" + pick(alnum, 4) + "%21" + pick(digits, 2)
	}
	return []entry{
		{"http-auth", `curl -H "Authorization: Basic ` + s(enc64("deploy:"+pick(alnum, 14))) + `" https://ci.acme.dev/api/json`},
		{"http-auth", `curl -sS -H 'X-Api-Key: ` + s(uuid()) + `' https://api.acme.dev/v2/orders`},
		{"http-auth", `curl -H "Authorization: Token ` + s(hexs(40)) + `" https://api.acme.dev/v1/me`},
		{"http-auth", `headers = {"Ocp-Apim-Subscription-Key": "` + s(hexs(32)) + `"}`},
		{"cli-secret", "curl -u deploy:" + s(pw()) + " https://ci.acme.dev/job/build/api/json"},
		{"cli-secret", "curl --user 'admin:" + s(pick(alnum, 10)+":"+pick(alnum, 4)) + "' https://nexus.acme.dev/service/rest/v1/status"},
		{"cli-secret", "mysql -h db.internal -u root -p" + s(pick(alnum, 14)) + " app < schema.sql"},
		{"cli-secret", "mysql -u root -p'" + s("quartz vendetta "+pick(lower, 8)) + "' app"},
		{"cli-secret", "sshpass -p " + s(pick(alnum, 12)+"!") + " ssh deploy@10.0.0.5 uptime"},
		{"cli-secret", "mysqldump --user=root --password=" + s(pick(alnum, 16)) + " app > dump.sql"},
		{"cli-secret", "mongodump --username admin --password " + s(pick(alnum, 18)) + " --out /tmp/dump"},
		{"cli-secret", "redis-cli -h cache.internal -a " + s(pick(alnum, 20)) + " ping"},
		{"cli-secret", "docker login -u acme -p " + s(pick(alnum, 20)) + " registry.acme.dev"},
		{"url-password", "git clone https://deploy:" + s(pw()) + "@git.acme.dev/acme/app.git"},
		{"url-password", "export HTTPS_PROXY=http://kim:" + s(pick(alnum, 5)+":"+pick(alnum, 4)+"@#"+pick(digits, 3)) + "@proxy.corp.acme.com:3128"},
		{"url-password", "proxy = kim:" + s(pick(alnum, 14)) + "@proxy.corp.acme.com:3128"},
		{"url-password", `dsn := "app:` + s(pick(alnum, 16)) + `@tcp(db.internal:3306)/app?parseTime=true"`},
		{"url-password", "mongodb+srv://admin:" + s(pick(alnum, 8)+"%40"+pick(alnum, 6)) + "@cluster0.ab1cd.mongodb.net/app"},
		{"env-secret", "DB_PASSWORD=" + s("correcthorse"+pick(lower, 6))},
		{"env-secret", "PGPASSWORD=" + s("bluemarigold"+pick(lower, 4)) + " psql -h db.internal -U app app"},
		{"env-secret", `DB_PASSWORD="` + s("quartz vendetta "+pick(lower, 9)) + `"`},
		{"env-secret", "ACME_API_KEY=" + s(uuid())},
		{"env-secret", `{"api_key": "` + s(uuid()) + `", "region": "eu-west-1"}`},
		{"env-secret", "  password: " + s("rosebud-"+pick(lower, 7))},
		{"env-secret", "WEBHOOK_SIGNING_SECRET=" + s(pick(b64url, 700))},
		{"env-secret", `export DEPLOY_TOKEN="` + s(pick(alnum, 650)) + `"`},
		{"generic-secret", "the webhook secret is " + s(hexs(64))},
		{"env-secret", "secret: " + s(pick(alnum, 24)+"/"+pick(alnum, 16))},
		{"base64-secret", "echo " + s(enc64("ghp_"+pick(alnum, 36))) + " | base64 -d"},
		{"base64-secret", "echo " + s(enc64("ci-bot:"+pick(alnum, 18))) + " | base64 --decode"},
		{"docker-auth", `{"auths": {"registry.acme.dev": {"auth": "` + s(enc64("acme:"+pick(alnum, 20))) + `"}}}`},
		{"azure-sas", "https://acmeprod.blob.core.windows.net/backups/db.bak?sv=2022-11-02&ss=b&srt=co&sp=rl&se=2026-12-01T00:00:00Z&spr=https&sig=" +
			s(strings.NewReplacer("+", "%2B", "/", "%2F", "=", "%3D").Replace(base64.StdEncoding.EncodeToString(randBytes(32))))},
		{"discord-webhook", "curl -X POST -d '{\"content\":\"deployed\"}' https://discord.com/api/webhooks/1" + pick(digits, 17) + "/" + s(pick(b64url, 68))},
	}
}

// providers are tokens recognised by their prefix, one or two of each.
func providers() []entry {
	return []entry{
		{"google-oauth-token", `curl -H "Authorization: Bearer ` + s("ya29.a0AfB_"+pick(b64url, 150)) + `" https://www.googleapis.com/drive/v3/files`},
		{"google-oauth-token", "GOOGLE_CLIENT_SECRET=" + s("GOCSPX-"+pick(b64url, 28))},
		{"openrouter-key", "OPENROUTER_API_KEY=" + s("sk-or-v1-"+hexs(64))},
		{"sk-hex-key", "DEEPSEEK_API_KEY=" + s("sk-"+hexs(32))},
		{"huggingface-token", "huggingface-cli login --token " + s("hf_"+pick(upper+lower, 34))},
		{"npm-token", "//registry.npmjs.org/:_authToken=" + s("npm_"+pick(alnum, 36))},
		{"pypi-token", "[pypi]\n  username = __token__\n  password = " + s("pypi-AgEIcHlwaS5vcmc"+pick(b64url, 150))},
		{"sendgrid-key", `sg = SendGridAPIClient("` + s("SG."+pick(b64url, 22)+"."+pick(b64url, 43)) + `")`},
		{"shopify-token", "X-Shopify-Access-Token: " + s("shpat_"+hexs(32))},
		{"vault-token", "export VAULT_TOKEN=" + s("hvs."+pick(b64url, 90))},
		{"vault-token", "vault login " + s("s."+pick(upper, 6)+pick(digits, 4)+pick(lower, 6)+pick(alnum, 8))},
		{"telegram-bot-token", "curl https://api.telegram.org/bot" + s("7"+pick(digits, 8)+":AA"+pick(b64url, 33)) + "/getMe"},
		{"digitalocean-token", "doctl auth init --access-token " + s("dop_v1_"+hexs(64))},
		{"linear-key", "LINEAR_API_KEY=" + s("lin_api_"+pick(alnum, 40))},
		{"postman-key", "x-api-key: " + s("PMAK-"+hexs(24)+"-"+hexs(34))},
		{"doppler-token", "DOPPLER_TOKEN=" + s("dp.st.prd."+pick(alnum, 40))},
		{"pulumi-token", "PULUMI_ACCESS_TOKEN=" + s("pul-"+hexs(40))},
		{"grafana-token", `curl -H "Authorization: Bearer ` + s("glsa_"+pick(alnum, 32)+"_"+hexs(8)) + `" https://grafana.acme.dev/api/dashboards`},
		{"databricks-token", "DATABRICKS_TOKEN=" + s("dapi"+hexs(32))},
		{"atlassian-token", "JIRA_API_TOKEN=" + s("ATATT3xFfGF0"+pick(b64url, 180))},
		{"sentry-token", "SENTRY_AUTH_TOKEN=" + s("sntryu_"+hexs(64))},
		{"age-secret-key", "# created: 2026-11-20T10:00:00Z\n" + s("AGE-SECRET-KEY-1"+pick("QPZRY9X8GF2TVDW0S3JN54KHCE6MUA7L", 58))},
		{"supabase-token", "supabase login --token " + s("sbp_"+hexs(40))},
		{"replicate-token", "REPLICATE_API_TOKEN=" + s("r8_"+pick(alnum, 37))},
		{"groq-key", `client = Groq(api_key="` + s("gsk_"+pick(alnum, 52)) + `")`},
		{"perplexity-key", "PERPLEXITY_API_KEY=" + s("pplx-"+pick(alnum, 48))},
		{"xai-key", "XAI_API_KEY=" + s("xai-"+pick(alnum, 80))},
		{"tailscale-key", "tailscale up --authkey " + s("tskey-auth-k"+pick(alnum, 10)+"CNTRL-"+pick(alnum, 32))},
		{"notion-token", "NOTION_TOKEN=" + s("ntn_"+pick(digits, 11)+pick(alnum, 35))},
		{"figma-token", "X-Figma-Token: " + s("figd_"+pick(b64url, 40))},
		{"planetscale-token", "mysql://app:" + s("pscale_pw_"+pick(alnum, 43)) + "@aws.connect.psdb.cloud/app?sslaccept=strict"},
		{"square-token", "SQUARE_ACCESS_TOKEN=" + s("sq0atp-"+pick(b64url, 22))},
		{"alibaba-access-key", "ALIBABA_CLOUD_ACCESS_KEY_ID=" + s("LTAI"+pick(alnum, 20))},
		{"terraform-token", `credentials "app.terraform.io" { token = "` + s(pick(alnum, 14)+".atlasv1."+pick(b64url, 67)) + `" }`},
		{"buildkite-token", "BUILDKITE_API_TOKEN=" + s("bkua_"+hexs(40))},
		{"dockerhub-token", "echo " + s("dckr_pat_"+pick(b64url, 27)) + " | docker login -u acme --password-stdin"},
		{"rubygems-token", "GEM_HOST_API_KEY=" + s("rubygems_"+hexs(48))},
		{"nuget-key", "dotnet nuget push app.1.4.2.nupkg --api-key " + s("oy2"+pick(lower+digits, 43)) + " --source https://api.nuget.org/v3/index.json"},
		{"dynatrace-token", "DT_API_TOKEN=" + s("dt0c01."+pick(upper+digits, 24)+"."+pick(upper+digits, 64))},
		{"newrelic-key", "NEW_RELIC_API_KEY=" + s("NRAK-"+pick(upper+digits, 27))},
		{"onepassword-token", "OP_SERVICE_ACCOUNT_TOKEN=" + s("ops_eyJ"+pick(alnum, 300))},
		{"azure-client-secret", "AZURE_CLIENT_SECRET=" + s(pick(alnum, 3)+"8Q~"+pick(alnum+"_~.-", 34))},
		{"cloudflare-origin-ca-key", "CF_ORIGIN_CA_KEY=" + s("v1.0-"+hexs(24)+"-"+hexs(146))},
		{"mapbox-token", "MAPBOX_SECRET_TOKEN=" + s("sk.eyJ1Ijoi"+pick(b64url, 60)+"."+pick(b64url, 22))},
		{"clojars-token", "lein deploy clojars with " + s("CLOJARS_"+pick(lower+digits, 60)) + " as the password"},
		{"adobe-client-secret", "  - " + s("p8e-"+pick(alnum, 32))},
		{"duffel-token", "Bearer-less header value " + s("duffel_test_"+pick(b64url, 43))},
		{"easypost-key", "client = easypost.Client(" + s("EZAK"+pick(alnum, 54)) + ")"},
		{"facebook-token", "graph call with " + s("EAAC"+pick(alnum, 160))},
		{"flutterwave-key", "use " + s("FLWSECK_TEST-"+hexs(32)+"-X") + " in staging"},
		{"flyio-token", "fly deploy with " + s("fo1_"+pick(b64url, 43))},
		{"frameio-token", "frame.io " + s("fio-u-"+pick(b64url, 64))},
		{"openshift-token", "oc login --token=" + s("sha256~"+pick(b64url, 43)) + " --server=https://api.ocp.acme.dev:6443"},
		{"prefect-token", "prefect cloud login -k " + s("pnu_"+pick(alnum, 36))},
		{"readme-token", "rdme openapi --key " + s("rdme_"+pick(lower+digits, 70))},
		{"scalingo-token", "scalingo login --api-token " + s("tk-us-"+pick(b64url, 48))},
		{"sendinblue-key", "brevo: " + s("xkeysib-"+hexs(64)+"-"+pick(alnum, 16))},
		{"settlemint-token", "settlemint login " + s("sm_pat_"+pick(alnum, 16))},
		{"shippo-token", "shippo.api_key = " + s("shippo_test_"+hexs(40))},
		{"sourcegraph-token", "src login with " + s("sgp_"+hexs(16)+"_"+hexs(40))},
		{"grafana-token", "grafana: " + s("eyJrIjoi"+pick(alnum, 90))},
		{"harness-token", "harness token " + s("pat."+pick(b64url, 22)+"."+pick(alnum, 24)+"."+pick(alnum, 20))},
		{"infracost-token", "infracost configure set api_key " + s("ico-"+pick(alnum, 32))},
		{"intra42-secret", "42 app " + s("s-s4t2ud-"+hexs(64))},
		{"gitlab-session", "curl -b " + s("_gitlab_session="+pick(lower+digits, 32)) + " https://gitlab.acme.dev/api/v4/user"},
		{"typeform-token", "typeform " + s("tfp_"+pick(b64url, 59))},
		{"square-token", "square access token " + s("EAAA"+pick(b64url, 60))},
		{"teams-webhook", "curl -H 'Content-Type: application/json' -d @msg.json https://acme." + s("webhook.office.com/webhookb2/"+uuid()+"@"+uuid()+"/IncomingWebhook/"+pick(alnum, 32)+"/"+uuid())},
	}
}

func main() {
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
		{"cli-secret", "./bin/release --token " + s(pick(alnum, 40)) + " --channel stable"},
		{"http-auth", `curl -H "Authorization: Bearer ` + s(pick(alnum, 48)) + `" https://api.acme.dev/v1/builds`},
	}
	entries = append(entries, shapes()...)
	entries = append(entries, providers()...)
	entries = append(entries, escaped()...)
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

// escaped gives values that hold a backslash or a quote, each plain, as a
// JSON string holds it and as a YAML double-quoted string does (both
// escape \ and "). Fixed values: they draw nothing from rng, so the
// entries before them keep theirs.
func escaped() []entry {
	var out []entry
	for _, e := range []entry{
		{"env-secret", `DB_PASSWORD=` + s(`hun\ter2xy`)},
		{"env-secret", `DB_PASSWORD='` + s(`hun\ter2xy`) + `'`},
		{"env-secret", `client_secret: "` + s(`a\"bcdefgh`) + `"`},
		{"env-secret", `password: '` + s(`a "b" c`) + `'`},
		{"cli-secret", `./bin/release --password "` + s(`p\w0rd long`) + `" --channel stable`},
		{"cli-secret", `curl -u admin:` + s(`p@ss"w0rd`) + ` https://ci.acme.dev/job/build/api/json`},
	} {
		js := strings.NewReplacer(`\`, `\\`, `"`, `\"`).Replace(e.text)
		out = append(out, e, entry{e.kind, `{"command": "` + js + `"}`}, entry{e.kind, `now: "` + js + `"`})
	}
	return out
}
