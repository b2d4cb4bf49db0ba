package cli

// atMost is checkAtMost of several keys, in order.
func atMost(configPath string, limits ...limit) error {
	for _, l := range limits {
		if err := checkAtMost(configPath, l.key, l.v, l.max); err != nil {
			return err
		}
	}
	return nil
}

// limit is a count v that key may set, and its bound.
type limit struct {
	key    string
	v, max int
}
