package dynamo

// SetSweepChunk makes AccountsSweep judge and hand on n accounts at a
// time, until restore.
func SetSweepChunk(n int) (restore func()) {
	was := sweepChunk
	sweepChunk = n
	return func() { sweepChunk = was }
}
