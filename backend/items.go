package backend

import "github.com/locktable/locktable/model"

// ItemPage is one page of items as they are stored: those under one
// partition key, or those that are neither accounts nor locks.
type ItemPage struct {
	Items []model.Item
	Next  Cursor
}
