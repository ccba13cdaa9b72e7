package shape

import "context"

// ExecuteAll answers c as Execute does but lists every key, however many:
// what a page through a large result reads.
func (s *Snapshot) ExecuteAll(ctx context.Context, c Call) (Result, error) {
	s.listAll = true
	defer func() { s.listAll = false }()
	return s.Execute(ctx, c)
}
