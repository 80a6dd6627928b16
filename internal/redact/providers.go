package redact

import "strings"

// token is one provider's token format: a fixed prefix (found by the
// keyword pass) and the shape of what follows. The table below is the one
// place to maintain them; each note says where the format comes from. The
// formats were checked against gitleaks' rule set (config/gitleaks.toml,
// MIT) and the providers' documentation; the patterns are written here.
//
// What was taken from gitleaks: the prefixes and lengths of tokens whose
// prefix is specific enough to need no context word (its "keywords" with a
// fixed token shape). What was not: its generic and per-vendor "word near a
// value" rules (hundreds of them, e.g. `(?:twitter)...([a-z0-9]{45})`): a
// secret-named assignment, a header or a flag already covers those values
// here, whatever the vendor, and gitleaks' versions trade false positives
// for reach in a way that suits a scanner that reports, not a redactor that
// rewrites a handoff in place.
type token struct {
	kind     string
	prefixes []string // keywords, lowercase or not (matched ignoring ASCII case)
	re       string   // the whole token, case-sensitive
	min      int      // shortest whole token, when re's repetition is open
	note     string
	// valid, when set, is a further check of the token.
	valid func(tok string) bool
	// left, when set, replaces the left boundary: what may come right
	// before the token.
	left string
}

// tokens, in priority order: a token inside another's span (a GitHub token
// in a URL password) keeps its own kind.
var tokens = []token{
	{kind: "aws-access-key", prefixes: []string{"akia", "asia", "abia", "acca", "a3t"},
		re:   `(?:A3T[A-Z0-9]|AKIA|ASIA|ABIA|ACCA)[A-Z0-9]{16}`,
		note: "AWS access key ids: 4-letter type prefix + 16 (AWS IAM 'unique ID prefixes'; gitleaks aws-access-token)"},
	{kind: "gcp-api-key", prefixes: []string{"aiza"}, re: `AIza[0-9A-Za-z_-]{35}`,
		note: "Google API keys, 39 characters (gitleaks gcp-api-key)"},
	{kind: "google-oauth-token", prefixes: []string{"ya29."}, re: `ya29\.[0-9A-Za-z_-]+`, min: 30,
		note: "Google OAuth 2.0 access tokens start ya29. (developers.google.com/identity, token formats)"},
	{kind: "google-oauth-token", prefixes: []string{"1//0"}, re: `1//0[0-9A-Za-z_-]+`, min: 40,
		note: "Google OAuth 2.0 refresh tokens start 1//0"},
	{kind: "google-oauth-token", prefixes: []string{"gocspx-"}, re: `GOCSPX-[0-9A-Za-z_-]{28}`,
		note: "Google OAuth client secrets since 2021: GOCSPX- + 28"},
	{kind: "github-fine-grained-token", prefixes: []string{"github_pat_"}, re: `github_pat_[A-Za-z0-9_]+`, min: 47,
		note: "GitHub fine-grained PATs: github_pat_ + 82 (gitleaks github-fine-grained-pat); shorter ones accepted"},
	{kind: "github-token", prefixes: []string{"ghp_", "gho_", "ghu_", "ghs_", "ghr_"}, re: `gh[pousr]_[A-Za-z0-9]+`, min: 40,
		note: "GitHub classic tokens: ghp_/gho_/ghu_/ghs_/ghr_ + 36 (GitHub blog 2021-04, gitleaks github-*)"},
	{kind: "gitlab-token", prefixes: []string{"glpat-", "gldt-", "glrt-", "glptt-", "glsoat-", "glcbt-", "glft-", "glimt-", "gloas-", "glffct-", "glagent-"},
		re: `(?:glpat|gldt|glrt|glptt|glsoat|glcbt|glft|glimt|gloas|glffct|glagent)-[A-Za-z0-9_.-]+`, min: 25,
		note: "GitLab tokens (docs.gitlab.com/security/tokens: token prefixes; gitleaks gitlab-*), routable ones carry a '.'"},
	{kind: "gitlab-token", prefixes: []string{"gr1348941"}, re: `GR1348941[A-Za-z0-9_-]{20,}`,
		note: "GitLab runner registration tokens (gitleaks gitlab-rrt)"},
	{kind: "slack-token", prefixes: []string{"xoxa-", "xoxb-", "xoxp-", "xoxr-", "xoxo-", "xoxs-", "xoxe-", "xoxe.", "xapp-"},
		re: `(?:xox[abposre]|xapp|xoxe\.xox[bp])-[0-9A-Za-z-]+`, min: 15,
		note: "Slack bot, user, app-level and configuration tokens (api.slack.com/authentication/token-types; gitleaks slack-*)"},
	{kind: "stripe-key", prefixes: []string{"sk_live_", "rk_live_", "sk_test_", "rk_test_", "sk_prod_", "rk_prod_", "whsec_"},
		re: `(?:(?:sk|rk)_(?:live|test|prod)_|whsec_)[0-9A-Za-z]+`, min: 24,
		note:  "Stripe secret and restricted keys and webhook signing secrets (stripe.com/docs/keys; gitleaks stripe-access-token)",
		valid: func(t string) bool { return hasDigit(t) }},
	{kind: "anthropic-key", prefixes: []string{"sk-ant-"}, re: `sk-ant-[A-Za-z0-9_-]+`, min: 27,
		note: "Anthropic API, admin and session keys: sk-ant-api03-/admin01-/sid01- + 93 + AA (gitleaks anthropic-*)"},
	{kind: "openrouter-key", prefixes: []string{"sk-or-"}, re: `sk-or-v[0-9]+-[0-9a-f]{32,}`,
		note: "OpenRouter keys: sk-or-v1- + 64 lowercase hex (openrouter.ai/settings/keys)"},
	{kind: "openai-key", prefixes: []string{"sk-"}, re: `sk-(?:proj-|svcacct-|admin-)?[A-Za-z0-9_-]+`, min: 23,
		note:  "OpenAI keys: sk-, sk-proj-, sk-svcacct-, sk-admin-, with T3BlbkFJ inside (gitleaks openai-api-key); any mixed-case sk- token is taken",
		valid: func(t string) bool { return hasDigit(t) && hasUpper(t) && hasLower(t[3:]) }},
	{kind: "sk-hex-key", prefixes: []string{"sk-"}, re: `sk-[0-9a-f]{32,}`,
		note:  "lowercase-hex sk- keys (DeepSeek and other OpenAI-compatible APIs: sk- + 32 hex)",
		valid: func(t string) bool { return hasDigit(t[3:]) && hasLower(t[3:]) }},
	{kind: "huggingface-token", prefixes: []string{"hf_", "api_org_"}, re: `(?:hf|api_org)_[A-Za-z0-9]{30,}`,
		note:  "Hugging Face user access and org tokens: hf_ + 34 letters (huggingface.co/docs/hub/security-tokens; gitleaks huggingface-*)",
		valid: func(t string) bool { v := t[strings.LastIndexByte(t, '_')+1:]; return hasUpper(v) && hasLower(v) }},
	{kind: "npm-token", prefixes: []string{"npm_"}, re: `npm_[A-Za-z0-9]{36}`,
		note: "npm access tokens: npm_ + 36 (github.blog 2021-09 npm token format; gitleaks npm-access-token)"},
	{kind: "pypi-token", prefixes: []string{"pypi-ag"}, re: `pypi-Ag[A-Za-z0-9_-]+`, min: 60,
		note: "PyPI and TestPyPI API tokens: pypi- + a macaroon that starts AgE (pypi.org/help/#apitoken; gitleaks pypi-upload-token)"},
	{kind: "sendgrid-key", prefixes: []string{"sg."}, re: `SG\.[A-Za-z0-9_-]{16,32}\.[A-Za-z0-9_-]{30,50}`,
		note: "SendGrid API keys: SG. + 22 + . + 43 (docs.sendgrid.com; gitleaks sendgrid-api-token)"},
	{kind: "shopify-token", prefixes: []string{"shpat_", "shpss_", "shpca_", "shppa_"}, re: `shp(?:at|ss|ca|pa)_[a-fA-F0-9]{32}`,
		note: "Shopify access tokens and shared secrets: shpat_/shpss_/shpca_/shppa_ + 32 hex (gitleaks shopify-*)"},
	{kind: "vault-token", prefixes: []string{"hvs.", "hvb.", "hvr."}, re: `hv[sbr]\.[A-Za-z0-9_-]+`, min: 28,
		note: "HashiCorp Vault service, batch and recovery tokens since 1.10: hvs./hvb./hvr. (developer.hashicorp.com/vault/docs/concepts/tokens); legacy s. tokens need the word vault (see vault-legacy below)"},
	{kind: "telegram-bot-token", prefixes: []string{":aa"}, re: `[0-9]{8,10}:AA[A-Za-z0-9_-]{32,33}`, left: `(?:^|\\[nrt]|[^A-Za-z0-9_]|bot)`,
		note: "Telegram bot tokens: bot id, ':', 35 characters starting AA (core.telegram.org/bots/api#authorizing-your-bot)"},
	{kind: "digitalocean-token", prefixes: []string{"dop_v1_", "doo_v1_", "dor_v1_"}, re: `do[por]_v1_[a-f0-9]{64}`,
		note: "DigitalOcean personal, OAuth and refresh tokens (gitleaks digitalocean-*)"},
	{kind: "linear-key", prefixes: []string{"lin_api_"}, re: `lin_api_[A-Za-z0-9]{40}`, note: "Linear API keys (gitleaks linear-api-key)"},
	{kind: "postman-key", prefixes: []string{"pmak-"}, re: `PMAK-[a-fA-F0-9]{24}-[a-fA-F0-9]{34}`, note: "Postman API keys (gitleaks postman-api-token)"},
	{kind: "doppler-token", prefixes: []string{"dp.pt.", "dp.st.", "dp.sa.", "dp.ct.", "dp.scim.", "dp.audit."},
		re: `dp\.(?:pt|st|sa|ct|scim|audit)\.[A-Za-z0-9_.-]{40,}`, note: "Doppler tokens (docs.doppler.com/reference/api#authentication; gitleaks doppler-api-token)"},
	{kind: "pulumi-token", prefixes: []string{"pul-"}, re: `pul-[a-f0-9]{40}`, note: "Pulumi access tokens (gitleaks pulumi-api-token)"},
	{kind: "grafana-token", prefixes: []string{"glc_", "glsa_"}, re: `(?:glc_[A-Za-z0-9+/]{32,}={0,3}|glsa_[A-Za-z0-9]{32}_[A-Fa-f0-9]{8})`,
		note: "Grafana Cloud and service account tokens (gitleaks grafana-*)"},
	{kind: "databricks-token", prefixes: []string{"dapi"}, re: `dapi[a-f0-9]{32}(?:-[0-9])?`, note: "Databricks PATs (gitleaks databricks-api-token)"},
	{kind: "atlassian-token", prefixes: []string{"atatt3", "atbb"}, re: `(?:ATATT3[A-Za-z0-9_=-]{100,}|ATBB[A-Za-z0-9]{32})`,
		note: "Atlassian API tokens and Bitbucket app passwords (gitleaks atlassian-api-token)"},
	{kind: "sentry-token", prefixes: []string{"sntrys_", "sntryu_"}, re: `sntry[su]_[A-Za-z0-9+/=_]{40,}`, note: "Sentry org and user tokens (gitleaks sentry-*)"},
	{kind: "age-secret-key", prefixes: []string{"age-secret-key-1"}, re: `AGE-SECRET-KEY-1[QPZRY9X8GF2TVDW0S3JN54KHCE6MUA7L]{58}`, note: "age identities (age-encryption.org/v1; gitleaks age-secret-key)"},
	{kind: "supabase-token", prefixes: []string{"sbp_"}, re: `sbp_[a-f0-9]{40}`, note: "Supabase access tokens (supabase.com/docs/reference/api)"},
	{kind: "replicate-token", prefixes: []string{"r8_"}, re: `r8_[A-Za-z0-9]{37}`, note: "Replicate API tokens: r8_ + 37 (replicate.com/account/api-tokens)"},
	{kind: "groq-key", prefixes: []string{"gsk_"}, re: `gsk_[A-Za-z0-9]{52}`, note: "Groq API keys: gsk_ + 52 (console.groq.com/keys)"},
	{kind: "perplexity-key", prefixes: []string{"pplx-"}, re: `pplx-[A-Za-z0-9]{48}`, note: "Perplexity API keys (gitleaks perplexity-api-key)"},
	{kind: "xai-key", prefixes: []string{"xai-"}, re: `xai-[A-Za-z0-9]{70,}`, note: "xAI API keys: xai- + 80 (console.x.ai)"},
	{kind: "tailscale-key", prefixes: []string{"tskey-"}, re: `tskey-(?:api|auth|client|webhook|scim)-[A-Za-z0-9]+-[A-Za-z0-9]+`, note: "Tailscale API, auth and OAuth client keys (tailscale.com/kb/1277/key-prefixes)"},
	{kind: "notion-token", prefixes: []string{"ntn_", "secret_"}, re: `(?:ntn_[0-9]{11}[A-Za-z0-9]{35}|secret_[A-Za-z0-9]{43})`, note: "Notion integration tokens, new (ntn_) and old (secret_ + 43) (gitleaks notion-api-token)"},
	{kind: "figma-token", prefixes: []string{"figd_"}, re: `figd_[A-Za-z0-9_-]{40}`, note: "Figma personal access tokens"},
	{kind: "planetscale-token", prefixes: []string{"pscale_tkn_", "pscale_pw_", "pscale_oauth_"}, re: `pscale_(?:tkn|pw|oauth)_[A-Za-z0-9_.=-]{32,64}`, note: "PlanetScale tokens and passwords (gitleaks planetscale-*)"},
	{kind: "square-token", prefixes: []string{"sq0atp-", "sq0csp-"}, re: `sq0(?:atp|csp)-[A-Za-z0-9_-]{22,60}`, note: "Square access tokens and OAuth secrets (gitleaks square-access-token)"},
	{kind: "square-token", prefixes: []string{"eaaa"}, re: `EAAA[A-Za-z0-9_-]{22,60}`, note: "Square access tokens, newer form (gitleaks square-access-token)",
		valid: func(t string) bool { return hasDigit(t[4:]) && hasUpper(t[4:]) && hasLower(t[4:]) }},
	{kind: "alibaba-access-key", prefixes: []string{"ltai"}, re: `LTAI[A-Za-z0-9]{20}`, note: "Alibaba Cloud AccessKey ids (gitleaks alibaba-access-key-id)"},
	{kind: "terraform-token", prefixes: []string{".atlasv1."}, re: `[A-Za-z0-9]{14}\.atlasv1\.[A-Za-z0-9_=-]{60,70}`, note: "HCP Terraform user and team tokens (gitleaks hashicorp-tf-api-token)"},
	{kind: "buildkite-token", prefixes: []string{"bkua_"}, re: `bkua_[a-f0-9]{40}`, note: "Buildkite API access tokens"},
	{kind: "dockerhub-token", prefixes: []string{"dckr_pat_", "dckr_oat_"}, re: `dckr_(?:pat|oat)_[A-Za-z0-9_-]{27,}`, note: "Docker Hub personal and organization access tokens (docs.docker.com/security/access-tokens)"},
	{kind: "clojars-token", prefixes: []string{"clojars_"}, re: `CLOJARS_[A-Za-z0-9]{60}`, note: "Clojars deploy tokens (gitleaks clojars-api-token)"},
	{kind: "adobe-client-secret", prefixes: []string{"p8e-"}, re: `p8e-[A-Za-z0-9]{32}`, note: "Adobe Developer Console client secrets (gitleaks adobe-client-secret)",
		valid: func(t string) bool { return hasDigit(t[4:]) }},
	{kind: "duffel-token", prefixes: []string{"duffel_test_", "duffel_live_"}, re: `duffel_(?:test|live)_[A-Za-z0-9_=-]{43}`, note: "Duffel API tokens (gitleaks duffel-api-token)"},
	{kind: "easypost-key", prefixes: []string{"ezak", "eztk"}, re: `EZ[AT]K[A-Za-z0-9]{54}`, note: "EasyPost production and test API keys (gitleaks easypost-api-token)",
		valid: func(t string) bool { return hasDigit(t[4:]) }},
	{kind: "facebook-token", prefixes: []string{"eaam", "eaac"}, re: `EAA[MC][A-Za-z0-9]+`, min: 104, note: "Facebook page and app access tokens (gitleaks facebook-page-access-token)",
		valid: func(t string) bool { return hasDigit(t[4:]) }},
	{kind: "flutterwave-key", prefixes: []string{"flwseck"}, re: `FLWSECK(?:_TEST)?-[a-f0-9]{32}-X`, note: "Flutterwave secret keys, live and test (gitleaks flutterwave-secret-key)"},
	{kind: "flyio-token", prefixes: []string{"fo1_", "fm2_"}, re: `(?:fo1_[A-Za-z0-9_-]{43}|fm2_[A-Za-z0-9+/]{100,}={0,3})`, note: "Fly.io tokens (gitleaks flyio-access-token)"},
	{kind: "frameio-token", prefixes: []string{"fio-u-"}, re: `fio-u-[A-Za-z0-9_=-]{64}`, note: "Frame.io developer tokens (gitleaks frameio-api-token)"},
	{kind: "openshift-token", prefixes: []string{"sha256~"}, re: `sha256~[A-Za-z0-9_-]{43}`, note: "OpenShift user tokens (gitleaks openshift-user-token)"},
	{kind: "prefect-token", prefixes: []string{"pnu_"}, re: `pnu_[A-Za-z0-9]{36}`, note: "Prefect API keys (gitleaks prefect-api-token)",
		valid: func(t string) bool { return hasDigit(t[4:]) }},
	{kind: "readme-token", prefixes: []string{"rdme_"}, re: `rdme_[a-z0-9]{70}`, note: "ReadMe API keys (gitleaks readme-api-token)"},
	{kind: "scalingo-token", prefixes: []string{"tk-us-"}, re: `tk-us-[A-Za-z0-9_-]{48}`, note: "Scalingo API tokens (gitleaks scalingo-api-token)"},
	{kind: "sendinblue-key", prefixes: []string{"xkeysib-"}, re: `xkeysib-[a-f0-9]{64}-[A-Za-z0-9]{16}`, note: "Brevo (Sendinblue) API keys (gitleaks sendinblue-api-token)"},
	{kind: "settlemint-token", prefixes: []string{"sm_aat_", "sm_pat_", "sm_sat_"}, re: `sm_(?:aat|pat|sat)_[A-Za-z0-9]{16}`, note: "SettleMint access tokens (gitleaks settlemint-*-access-token)",
		valid: func(t string) bool { return hasDigit(t[7:]) }},
	{kind: "shippo-token", prefixes: []string{"shippo_live_", "shippo_test_"}, re: `shippo_(?:live|test)_[a-fA-F0-9]{40}`, note: "Shippo API tokens (gitleaks shippo-api-token)"},
	{kind: "sourcegraph-token", prefixes: []string{"sgp_"}, re: `sgp_(?:(?:[a-fA-F0-9]{16}|local)_)?[a-fA-F0-9]{40}`, note: "Sourcegraph access tokens (gitleaks sourcegraph-access-token)"},
	{kind: "grafana-token", prefixes: []string{"eyjrijoi"}, re: `eyJrIjoi[A-Za-z0-9]{70,400}={0,3}`, note: "Grafana API keys, base64 JSON (gitleaks grafana-api-key)"},
	{kind: "harness-token", prefixes: []string{"pat.", "sat."}, re: `[ps]at\.[A-Za-z0-9_-]{22}\.[A-Za-z0-9]{24}\.[A-Za-z0-9]{20}`, note: "Harness personal and service account tokens (gitleaks harness-api-key)"},
	{kind: "infracost-token", prefixes: []string{"ico-"}, re: `ico-[A-Za-z0-9]{32}`, note: "Infracost API keys (gitleaks infracost-api-token)",
		valid: func(t string) bool { return hasDigit(t[4:]) && hasUpper(t[4:]) && hasLower(t[4:]) }},
	{kind: "intra42-secret", prefixes: []string{"s-s4t2ud-", "s-s4t2af-"}, re: `s-s4t2(?:ud|af)-[a-f0-9]{64}`, note: "42 School (Intra) client secrets (gitleaks intra42-client-secret)"},
	{kind: "gitlab-session", prefixes: []string{"_gitlab_session="}, re: `_gitlab_session=[0-9a-z]{32}`, note: "GitLab session cookies (gitleaks gitlab-session-cookie)"},
	{kind: "typeform-token", prefixes: []string{"tfp_"}, re: `tfp_[A-Za-z0-9_.=-]{59}`, note: "Typeform personal access tokens (gitleaks typeform-api-token)"},
	{kind: "teams-webhook", prefixes: []string{"webhook.office.com/webhookb2/"}, re: `webhook\.office\.com/webhookb2/[a-f0-9-]{36}@[a-f0-9-]{36}/IncomingWebhook/[A-Za-z0-9]{32}/[a-f0-9-]{36}(?:/[A-Za-z0-9_-]+)?`,
		left: `(?:^|[^A-Za-z0-9_-])`, note: "Microsoft Teams incoming webhook URLs, from the host on (gitleaks microsoft-teams-webhook)"},
	{kind: "rubygems-token", prefixes: []string{"rubygems_"}, re: `rubygems_[a-f0-9]{48}`, note: "RubyGems API keys (gitleaks rubygems-api-token)"},
	{kind: "nuget-key", prefixes: []string{"oy2"}, re: `oy2[a-z0-9]{43}`, note: "NuGet API keys",
		valid: func(t string) bool { return hasDigit(t[3:]) }},
	{kind: "dynatrace-token", prefixes: []string{"dt0c01."}, re: `dt0c01\.[A-Za-z0-9]{24}\.[A-Za-z0-9]{64}`, note: "Dynatrace API tokens (gitleaks dynatrace-api-token)"},
	{kind: "newrelic-key", prefixes: []string{"nrak-", "nrii-", "nrjs-"}, re: `NR(?:AK-[A-Z0-9]{27}|II-[A-Za-z0-9-]{32}|JS-[a-f0-9]{19})`, note: "New Relic user, insert and browser keys (gitleaks new-relic-*)"},
	{kind: "onepassword-token", prefixes: []string{"ops_eyj"}, re: `ops_eyJ[A-Za-z0-9+/]+={0,3}`, min: 200, note: "1Password service account tokens (gitleaks 1password-service-account-token)"},
	{kind: "azure-client-secret", prefixes: []string{"q~"}, re: `[A-Za-z0-9_~.]{3}[0-9]Q~[A-Za-z0-9_~.-]{31,34}`, note: "Microsoft Entra (Azure AD) client secrets: 3 chars, a digit, Q~, 31-34 (gitleaks azure-ad-client-secret)"},
	{kind: "cloudflare-origin-ca-key", prefixes: []string{"v1.0-"}, re: `v1\.0-[a-f0-9]{24}-[a-f0-9]{146}`, note: "Cloudflare Origin CA keys (gitleaks cloudflare-origin-ca-key)"},
	{kind: "mapbox-token", prefixes: []string{"sk.eyj"}, re: `sk\.eyJ[A-Za-z0-9_-]{20,}\.[A-Za-z0-9_-]{20,}`, note: "Mapbox secret tokens: sk. + a JWT-like body (docs.mapbox.com/accounts/guides/tokens)"},
}

// tokenRules turns the table into rules. A token is whole: the characters
// before and after it must not continue it, and a token longer than its
// window (one with an open length) is followed to its end.
func tokenRules() []*rule {
	var out []*rule
	for _, t := range tokens {
		t := t
		ru := &rule{
			kind:     t.kind,
			keywords: lowerAll(t.prefixes),
			re:       lazy(`(?:^|\\[nrt]|[^A-Za-z0-9_])(` + t.re + `)(?:[^A-Za-z0-9_]|$)`),
			groups:   []int{1},
			back:     16, fwd: 320,
			tail: tokenTail,
		}
		if t.kind == "telegram-bot-token" || t.kind == "azure-client-secret" || t.kind == "terraform-token" {
			ru.back = 24 // the keyword sits inside the token
		}
		if t.kind == "openai-key" || t.kind == "sk-hex-key" || t.kind == "openrouter-key" || t.kind == "slack-token" ||
			t.kind == "gitlab-token" || t.kind == "anthropic-key" || t.kind == "tailscale-key" || t.kind == "pypi-token" {
			// Tokens that contain '-': a '-' before one continues a word
			// (task-description-sk-...), not a token.
			ru.re = lazy(`(?:^|\\[nrt]|[^A-Za-z0-9_-])(` + t.re + `)(?:[^A-Za-z0-9_-]|$)`)
		}
		if t.left != "" {
			ru.re = lazy(t.left + `(` + t.re + `)(?:[^A-Za-z0-9_-]|$)`)
		}
		min, valid := t.min, t.valid
		if min > 0 || valid != nil {
			ru.valid = func(s, _ string, _ int) bool { return len(s) >= min && (valid == nil || valid(s)) }
		}
		out = append(out, ru)
	}
	return out
}

func lowerAll(ks []string) []string {
	out := make([]string, len(ks))
	for i, k := range ks {
		out[i] = asciiLower(k)
	}
	return out
}
