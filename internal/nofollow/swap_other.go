//go:build unix && !linux && !darwin

package nofollow

func swapat(int, string, int, string) error { return ErrSwapUnsupported }
