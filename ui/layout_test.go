package ui

import (
	"regexp"
	"strings"
	"testing"

	"github.com/locktable/locktable/internal/uitest"
	"github.com/locktable/locktable/model"
)

// fakeDevices is a --layout tables backend: devices dev-0001 and
// dev-0002 with their locks, and a lock whose owner is gone.
func fakeDevices() *uitest.Backend {
	sc := model.DefaultSchema(model.LayoutTables)
	b := uitest.New(sc)
	for _, d := range []struct{ id, mac, code string }{{"dev-0001", "aa:01", "r1"}, {"dev-0002", "aa:02", "r2"}} {
		b.Put(sc.Table, model.Item{sc.PK: model.S(d.id), "mac_address": model.S(d.mac), "registration_code": model.S(d.code)})
		b.Put("unique_mac_addresses", model.Item{"MacAddress": model.S(d.mac), "owner": model.S(d.id)})
		b.Put("unique_registration_codes", model.Item{"RegistrationCode": model.S(d.code), "owner": model.S(d.id)})
	}
	b.Put("unique_mac_addresses", model.Item{"MacAddress": model.S("ff:ff"), "owner": model.S("dev-0009")})
	return b
}

// TestLayoutTablesSpeaksOfRecords: under --layout tables the accounts
// view calls its rows records, and a new record's suggested key looks like
// the table's (dev-…).
func TestLayoutTablesSpeaksOfRecords(t *testing.T) {
	t.Parallel()
	d := newDriver(t, Options{Roles: roles(fakeDevices())}, 120, 30)
	d.ready()
	s := d.screen()
	for _, want := range []string{"1 Records", "2 records loaded"} {
		if !strings.Contains(s, want) {
			t.Errorf("no %q on screen:\n%s", want, s)
		}
	}
	if d.rowIndex("records") < 0 {
		t.Errorf("no records heading:\n%s", s)
	}
	d.press("k")
	for _, l := range d.lines()[2:] {
		if strings.Contains(strings.ToLower(l), "account") {
			t.Errorf("a line speaks of accounts: %q", l)
		}
	}
	d.press("j", "?") // back on a record: help offers what works on it
	for _, want := range []string{"edit/rename record", "1         records", "add record"} {
		if !strings.Contains(d.screen(), want) {
			t.Errorf("no %q on the help screen:\n%s", want, d.screen())
		}
	}
	if strings.Contains(strings.ToLower(d.screen()), "account") {
		t.Errorf("the help screen speaks of accounts:\n%s", d.screen())
	}
	d.press("esc", "a")
	waitScreen(d, "the form", "add record: signup")
	if !regexp.MustCompile(`dev-[0-9a-f]{12}`).MatchString(d.screen()) {
		t.Errorf("the suggested key does not look like dev-…:\n%s", d.screen())
	}
}
