package cli

import (
	"strings"
	"testing"
)

func TestParseSize(t *testing.T) {
	for _, tt := range []struct {
		in   string
		want int64
		err  string // part of the error, "" for none
	}{
		{"512MB", 512e6, ""},
		{"64mb", 64e6, ""},
		{"1GiB", 1 << 30, ""},
		{"1.5 GiB", 3 << 29, ""},
		{"256KiB", 256 << 10, ""},
		{"4096", 4096, ""},
		{"10B", 10, ""},
		{"2TB", 2e12, ""},
		{"", 0, "not a size"},
		{"MB", 0, "not a size"},
		{"12XB", 0, "not a size"},
		{"0x10MB", 0, "not a size"},
		{"1e3", 1000, ""},
		{"0", 0, "at least one byte"},
		{"-5MB", 0, "at least one byte"},
		{"0.1", 0, "at least one byte"},
		{"99999999TiB", 0, "too large"},
		{"NaN", 0, "not a size"},
	} {
		got, err := parseSize(tt.in)
		switch {
		case tt.err == "" && (err != nil || got != tt.want):
			t.Errorf("parseSize(%q) = %d, %v; want %d", tt.in, got, err, tt.want)
		case tt.err != "" && (err == nil || !strings.Contains(err.Error(), tt.err)):
			t.Errorf("parseSize(%q) = %d, %v; want an error saying %q", tt.in, got, err, tt.err)
		}
	}
}

// TestFormatSize: a size is written as parseSize reads it back.
func TestFormatSize(t *testing.T) {
	for _, n := range []int64{defaultMaxMemory, 64e6, 1 << 30, 1e9, 3 << 10, 1500, 7} {
		s := formatSize(n)
		if back, err := parseSize(s); err != nil || back != n {
			t.Errorf("formatSize(%d) = %q, read back as %d, %v", n, s, back, err)
		}
	}
	if s := formatSize(defaultMaxMemory); s != "512MiB" {
		t.Errorf("the default is written %q", s)
	}
}
