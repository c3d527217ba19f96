package main

import (
	"os"
	"regexp"
	"testing"
)

// TestREADMELabelsOnce: the README had two "Requirements:" paragraphs,
// the older one short of what make test needs. A paragraph opened by a
// label says all there is under it, once.
func TestREADMELabelsOnce(t *testing.T) {
	readme, err := os.ReadFile("README.md")
	if err != nil {
		t.Fatal(err)
	}
	seen := map[string]bool{}
	for _, m := range regexp.MustCompile(`(?m)^([A-Z][A-Za-z ]{2,20}): `).FindAllSubmatch(readme, -1) {
		if label := string(m[1]); seen[label] {
			t.Errorf("the README opens two paragraphs with %q", label+":")
		} else {
			seen[label] = true
		}
	}
}
