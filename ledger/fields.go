package ledger

// Scalar is the field scalar key names in l (session, goal, now,
// updated), nil for any other key: the one place a key maps to its field.
func (l *Ledger) Scalar(key string) *string {
	switch key {
	case KeySession:
		return &l.Stream
	case KeyGoal:
		return &l.Goal
	case KeyNow:
		return &l.Now
	case KeyUpdated:
		return &l.Updated
	}
	return nil
}

// List is the field list key names in l (constraints, done, next,
// questions, files), nil for any other key (decisions are not strings).
func (l *Ledger) List(key string) *[]string {
	switch key {
	case KeyConstraints:
		return &l.Constraints
	case KeyDone:
		return &l.Done
	case KeyNext:
		return &l.Next
	case KeyQuestions:
		return &l.Questions
	case KeyFiles:
		return &l.Files
	}
	return nil
}
