package model

// CheckPhase names what a running check is doing.
type CheckPhase string

// The phases of a check, in order.
const (
	PhaseScan    CheckPhase = "scan"    // the main scan of every table
	PhaseConfirm CheckPhase = "confirm" // consistent reads of the keys involved
	PhaseRescan  CheckPhase = "rescan"  // looking for holders of ownerless orphans
	PhaseDone    CheckPhase = "done"
)

// CheckProgress is reported as a check runs.
type CheckProgress struct {
	Phase   CheckPhase
	Scanned int64 // items read by the main scan so far
	Approx  int64 // the tables' approximate item count (0 when unknown)
	// Confirmed holds the problems confirmed so far, from the rescan phase
	// on: those a key read settles are known before ownerless orphans are.
	Confirmed []Problem
}
