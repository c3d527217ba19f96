package ui

import (
	"github.com/locktable/locktable/model"
	"github.com/locktable/locktable/ui/command"
	"github.com/locktable/locktable/ui/detail"
	"github.com/locktable/locktable/ui/mistakes"
	"github.com/locktable/locktable/ui/search"
	"github.com/locktable/locktable/ui/write"
	"github.com/locktable/locktable/ui/writelog"
)

// layers are what can be open over the list views: the filter field, the
// command line, the write dialog, the menu of mistakes, the detail and
// the writes log (help is the helpScreen).
type layers struct {
	search   search.Model
	cmdline  command.Model
	write    write.Model
	mistakes mistakes.Model
	detail   detail.Model
	writelog writelog.Model
	// shownRef is the key of the item the detail shows (nil: none), for
	// the copy keys.
	shownRef *model.KeyRef
	// tables are the endpoint's, for :table (nil until listed, or when
	// they cannot be), listing while they are being read.
	tables  []string
	listing bool
}
