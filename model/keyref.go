package model

import (
	"maps"
	"slices"
	"strconv"
	"strings"
)

// ID is a stable string for r's table and key, for de-duplicating reads:
// each part is written with its length before it, so that values holding
// any character (NUL included) never run into the next part. It is built
// for every key of every page read, so a key of one or two attributes
// (every DynamoDB key) is not sorted through a slice.
func (r KeyRef) ID() string {
	table, key := r.Table, r.Key
	var b strings.Builder
	n := len(table) + 4
	for k, v := range key {
		n += 8 + len(k) + len(v)
	}
	b.Grow(n)
	str := func(s string) {
		b.WriteString(strconv.Itoa(len(s)))
		b.WriteByte(':')
		b.WriteString(s)
	}
	str(table)
	part := func(k string) {
		str(k)
		str(key[k])
	}
	switch len(key) {
	case 1:
		for k := range key {
			part(k)
		}
	case 2:
		var names [2]string
		i := 0
		for k := range key {
			names[i] = k
			i++
		}
		if names[1] < names[0] {
			names[0], names[1] = names[1], names[0]
		}
		part(names[0])
		part(names[1])
	default:
		for _, k := range slices.Sorted(maps.Keys(key)) {
			part(k)
		}
	}
	return b.String()
}

// Text is r's key as a person reads it: its values, in the order of
// their attributes' names, space-separated (unescaped: Printable it to
// show it).
func (r KeyRef) Text() string {
	var vs []string
	for _, k := range slices.Sorted(maps.Keys(r.Key)) {
		vs = append(vs, r.Key[k])
	}
	return strings.Join(vs, " ")
}
