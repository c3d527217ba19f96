// Package e2e holds the end-to-end tests: they build the locktable binary
// from the module's root once (TestMain) and run it as a user does, its
// commands against dynoxide and its terminal UI in tmux; and they hold the
// README and docs/ to what the binary does. Nothing imports it.
package e2e
