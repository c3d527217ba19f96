// Package spill keeps records that do not fit in memory on disk: in a set
// of partition files, each record in the one a hash of its key picks, so
// that each partition can be read back alone. A set's directory holds the
// id of the process that made it, so that a later process removes what a
// killed one left.
package spill

import (
	"bufio"
	"errors"
	"fmt"
	"hash/maphash"
	"io/fs"
	"os"
	"path/filepath"
)

// Buffer is the write buffer of one partition file.
const Buffer = 8 << 10

// Set is a directory of partition files.
type Set struct {
	dir   string
	parts []*partitionFile
	seed  maphash.Seed
}

// partitionFile is one partition: the records whose keys hash to it,
// appended as they come. It is open only between a write and the next
// Flush: a census reconciling a partition split again would otherwise
// hold the files of every level open at once.
type partitionFile struct {
	path    string
	f       *os.File // nil while closed
	w       *bufio.Writer
	created bool // a record was written: the file must be there
}

// Create makes a directory under dir ("" for the system's temporary
// directory, after removing the stale ones there) and names its n
// partition files, created at their first record.
func Create(dir string, n int) (*Set, error) {
	d, err := os.MkdirTemp(dir, fmt.Sprintf("%s%d-", spillDirPrefix, os.Getpid()))
	if err != nil {
		return nil, err
	}
	if fi, err := os.Stat(d); dir == "" && err == nil {
		// Staleness is judged by the file system's clock, which stamped
		// both the new directory and the old ones.
		removeStaleSpills(os.TempDir(), fi.ModTime())
	}
	s := &Set{dir: d, seed: maphash.MakeSeed()}
	for i := range n {
		s.parts = append(s.parts, &partitionFile{path: filepath.Join(d, fmt.Sprintf("part-%03d", i))})
	}
	return s, nil
}

// Dir is the set's directory, where a set of a partition split again is
// made.
func (s *Set) Dir() string { return s.dir }

// Len is the number of partitions.
func (s *Set) Len() int { return len(s.parts) }

// partition is the partition of key (k, v).
func (s *Set) partition(k int, v []byte) int {
	h := maphash.Bytes(s.seed, v) + uint64(k)*0x9e3779b97f4a7c15
	return int(h % uint64(len(s.parts)))
}

// Write appends record to the partition of key (k, v), opening its file
// when it is closed. The error names the file.
func (s *Set) Write(k int, v, record []byte) error {
	p := s.parts[s.partition(k, v)]
	if err := p.write(record); err != nil {
		return fmt.Errorf("%s: %w", p.path, err)
	}
	return nil
}

// Append appends record to partition i, which the caller chose rather
// than a hash (records kept in an order of their own, one file per
// part of it). The error names the file.
func (s *Set) Append(i int, record []byte) error {
	p := s.parts[i]
	if err := p.write(record); err != nil {
		return fmt.Errorf("%s: %w", p.path, err)
	}
	return nil
}

func (p *partitionFile) write(record []byte) error {
	if p.f == nil {
		f, err := os.OpenFile(p.path, os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o600)
		if err != nil {
			return err
		}
		p.f, p.w, p.created = f, bufio.NewWriterSize(f, Buffer), true
	}
	_, err := p.w.Write(record)
	return err
}

// Flush flushes and closes every partition file, so that each holds every
// record written to it. The error names the file.
func (s *Set) Flush() error {
	for _, p := range s.parts {
		if err := p.close(); err != nil {
			return fmt.Errorf("%s: %w", p.path, err)
		}
	}
	return nil
}

// close flushes and closes the file, if open.
func (p *partitionFile) close() error {
	if p.f == nil {
		return nil
	}
	err := errors.Join(p.w.Flush(), p.f.Close())
	p.f, p.w = nil, nil
	return err
}

// Open opens partition i to read it, after Flush: nil and no error when no
// record was written to it. A file written to and gone (removed by hand,
// or by a cleaner of the temporary directory) is an error, never a
// partition of no record.
func (s *Set) Open(i int) (*os.File, error) {
	p := s.parts[i]
	f, err := os.Open(p.path)
	switch {
	case err == nil:
		return f, nil
	case errors.Is(err, fs.ErrNotExist) && !p.created:
		return nil, nil
	}
	return nil, err
}

// Path is the file of partition i.
func (s *Set) Path(i int) string { return s.parts[i].path }

// Remove closes the partition files and removes the directory.
func (s *Set) Remove() error {
	var errs []error
	for _, p := range s.parts {
		errs = append(errs, p.close())
	}
	errs = append(errs, os.RemoveAll(s.dir))
	s.parts = nil
	return errors.Join(errs...)
}
