package redact

import (
	"math/rand/v2"
	"regexp"
	"testing"
)

// TestIsUUID: the loop says what the pattern it replaced said, on UUIDs,
// near misses (a character changed, moved, added or cut) and noise.
func TestIsUUID(t *testing.T) {
	re := regexp.MustCompile(`^[0-9A-Fa-f]{8}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{12}$`)
	rng := rand.New(rand.NewPCG(1, 2))
	alphabet := "0123456789abcdefABCDEFgG-xZ \n\u00e9"
	cases := []string{"", "3f2a9c1e-7b4d-4e8a-9c2f-1a2b3c4d5e6f", "3F2A9C1E-7B4D-4E8A-9C2F-1A2B3C4D5E6F", "3f2a9c1e7b4d4e8a9c2f1a2b3c4d5e6f"}
	for range 20000 {
		b := []byte("3f2a9c1e-7b4d-4e8a-9c2f-1a2b3c4d5e6f")
		switch rng.IntN(4) {
		case 0:
			b[rng.IntN(len(b))] = alphabet[rng.IntN(len(alphabet))]
		case 1:
			b = b[:rng.IntN(len(b))]
		case 2:
			i := rng.IntN(len(b))
			b = append(b[:i], append([]byte{alphabet[rng.IntN(len(alphabet))]}, b[i:]...)...)
		default:
			b = make([]byte, 36)
			for i := range b {
				b[i] = alphabet[rng.IntN(len(alphabet))]
			}
		}
		cases = append(cases, string(b))
	}
	uuids := 0
	for _, s := range cases {
		if got, want := isUUID(s), re.MatchString(s); got != want {
			t.Fatalf("isUUID(%q) = %v, the pattern says %v", s, got, want)
		} else if got {
			uuids++
		}
	}
	if uuids < 1000 {
		t.Errorf("only %d UUIDs among the cases", uuids)
	}
}
