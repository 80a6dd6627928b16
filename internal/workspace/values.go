package workspace

import (
	"encoding/json"
	"sort"
	"strings"
)

// Value is one effective setting: its dotted key, its value as text, and
// where it came from (a file, a variable, or "default").
type Value struct {
	Key   string `json:"key"`
	Value string `json:"value"`
	From  string `json:"from"`
}

// Values lists the effective configuration, one Value a key, sorted by key.
func (l *LoadedConfig) Values() ([]Value, error) {
	// Flatten the configuration to key → value through its JSON form.
	b, err := json.Marshal(l.Config)
	if err != nil {
		return nil, err
	}
	var tree map[string]any
	if err := json.Unmarshal(b, &tree); err != nil {
		return nil, err
	}
	flat := map[string]string{}
	flatten("", tree, flat)
	keys := make([]string, 0, len(flat))
	for k := range flat {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	var out []Value
	for _, k := range keys {
		out = append(out, Value{k, flat[k], l.origin(k)})
	}
	return out, nil
}

// origin is where key's value came from: its own entry in From, else its
// nearest parent's, else "default".
func (l *LoadedConfig) origin(key string) string {
	for k := key; k != ""; {
		if from, ok := l.From[k]; ok {
			return from
		}
		i := strings.LastIndex(k, ".")
		if i < 0 {
			break
		}
		k = k[:i]
	}
	return "default"
}

func flatten(prefix string, v any, out map[string]string) {
	switch t := v.(type) {
	case map[string]any:
		for k, sub := range t {
			key := k
			if prefix != "" {
				key = prefix + "." + k
			}
			flatten(key, sub, out)
		}
	case nil:
		out[prefix] = "[]"
	default:
		b, _ := json.Marshal(t)
		s := string(b)
		if str, ok := t.(string); ok {
			s = str
		}
		out[prefix] = s
	}
}
