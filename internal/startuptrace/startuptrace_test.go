package startuptrace

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestMarkRecordsEachPhaseOnce(t *testing.T) {
	old := path
	path = filepath.Join(t.TempDir(), "trace")
	t.Cleanup(func() { path = old })
	Mark("main")
	Mark("config")
	Mark("main")
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var phases []string
	for _, l := range strings.Split(strings.TrimSpace(string(raw)), "\n") {
		phases = append(phases, strings.Fields(l)[0])
	}
	if got := strings.Join(phases, ","); got != "main,config" {
		t.Errorf("phases %q, want main,config", got)
	}
}
