package cli

import (
	"fmt"
	"math"
	"strconv"
	"strings"
)

// byteSize is a flag holding a number of bytes, written as a size:
// 512MB, 1GiB, 64mb, 1.5GB, 4096. KB, MB, GB and TB are powers of 1000;
// KiB, MiB, GiB and TiB powers of 1024.
type byteSize int64

// sizeUnits are the units a size may carry, longest first, so that "MiB"
// is not read as "B".
var sizeUnits = []struct {
	name string
	mult float64
}{
	{"kib", 1 << 10}, {"mib", 1 << 20}, {"gib", 1 << 30}, {"tib", 1 << 40},
	{"kb", 1e3}, {"mb", 1e6}, {"gb", 1e9}, {"tb", 1e12},
	{"b", 1},
}

func (b *byteSize) Set(s string) error {
	n, err := parseSize(s)
	if err != nil {
		return err
	}
	*b = byteSize(n)
	return nil
}

func (b *byteSize) String() string { return formatSize(int64(*b)) }

func (b *byteSize) Type() string { return "size" }

// parseSize reads a positive size (see byteSize).
func parseSize(s string) (int64, error) {
	bad := fmt.Errorf("%q is not a size: want a number of bytes with a unit, such as 512MB or 1GiB", s)
	num, mult := strings.TrimSpace(s), 1.0
	lower := strings.ToLower(num)
	for _, u := range sizeUnits {
		if strings.HasSuffix(lower, u.name) {
			num, mult = strings.TrimSpace(num[:len(num)-len(u.name)]), u.mult
			break
		}
	}
	f, err := strconv.ParseFloat(num, 64)
	if err != nil || math.IsNaN(f) || math.IsInf(f, 0) || strings.ContainsAny(num, "xXpP_") {
		return 0, bad
	}
	bytes := f * mult
	switch {
	case bytes < 1:
		return 0, fmt.Errorf("%q: the size must be at least one byte", s)
	case bytes >= math.MaxInt64:
		return 0, fmt.Errorf("%q: too large a size", s)
	}
	return int64(bytes), nil
}

// formatSize writes n in the largest binary or decimal unit that divides
// it, as parseSize reads it back.
func formatSize(n int64) string {
	for _, u := range []struct {
		name string
		mult int64
	}{{"TiB", 1 << 40}, {"TB", 1e12}, {"GiB", 1 << 30}, {"GB", 1e9}, {"MiB", 1 << 20}, {"MB", 1e6}, {"KiB", 1 << 10}, {"KB", 1e3}} {
		if n != 0 && n%u.mult == 0 {
			return fmt.Sprintf("%d%s", n/u.mult, u.name)
		}
	}
	return strconv.FormatInt(n, 10)
}
