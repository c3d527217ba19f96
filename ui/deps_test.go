package ui

import (
	"os/exec"
	"strings"
	"testing"
)

// TestTheUISpeaksNoSDK keeps the terminal UI, and the write flow and
// values it speaks, free of the AWS SDK: they see the tables through
// package backend's values, and only package dynamo knows DynamoDB's
// types (issue 18).
func TestTheUISpeaksNoSDK(t *testing.T) {
	t.Parallel()
	out, err := exec.Command("go", "list", "-deps", "./...", "../writes", "../backend").Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	for _, pkg := range strings.Fields(string(out)) {
		if strings.Contains(pkg, "aws-sdk-go-v2") || strings.Contains(pkg, "smithy-go") || strings.HasSuffix(pkg, "locktable/dynamo") {
			t.Errorf("ui, writes or backend depend on %s", pkg)
		}
	}
}
