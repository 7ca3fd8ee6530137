package engine

import (
	"fmt"
	"strconv"
	"strings"
)

// Parsers of setting values for engines' CheckSettings and Open. m holds every setting (see
// MergeSettings); errors name the engine, the setting and the value.

// IntSetting returns setting name of m as an integer in [min, max].
func IntSetting(eng string, m map[string]string, name string, min, max int) (int, error) {
	v, err := strconv.Atoi(strings.TrimSpace(m[name]))
	if err != nil {
		return 0, fmt.Errorf("%s: setting %s: %q is not an integer", eng, name, m[name])
	}
	if v < min || v > max {
		return 0, fmt.Errorf("%s: setting %s: %d is out of range [%d, %d]", eng, name, v, min, max)
	}
	return v, nil
}

// IntField is an integer setting for IntSettings: its name, where its value goes, and the
// bounds of the value.
type IntField struct {
	Name     string
	Dst      *int
	Min, Max int
}

// IntSettings reads each of fields from m with IntSetting, and returns the first error.
func IntSettings(eng string, m map[string]string, fields []IntField) error {
	for _, f := range fields {
		v, err := IntSetting(eng, m, f.Name, f.Min, f.Max)
		if err != nil {
			return err
		}
		*f.Dst = v
	}
	return nil
}

// EnumSetting returns setting name of m in lower case if it is one of allowed.
func EnumSetting(eng string, m map[string]string, name string, allowed []string) (string, error) {
	v := strings.ToLower(strings.TrimSpace(m[name]))
	for _, a := range allowed {
		if v == a {
			return v, nil
		}
	}
	return "", fmt.Errorf("%s: setting %s: %q is not one of %s", eng, name, m[name], strings.Join(allowed, ", "))
}

// BoolField is a boolean setting for BoolSettings: its name and where its value goes.
type BoolField struct {
	Name string
	Dst  *bool
}

// BoolSettings reads each of fields from m with BoolSetting, and returns the first error.
func BoolSettings(eng string, m map[string]string, fields []BoolField) error {
	for _, f := range fields {
		v, err := BoolSetting(eng, m, f.Name)
		if err != nil {
			return err
		}
		*f.Dst = v
	}
	return nil
}

// BoolSetting returns setting name of m as a boolean (true, false, 1, 0).
func BoolSetting(eng string, m map[string]string, name string) (bool, error) {
	v, err := strconv.ParseBool(strings.TrimSpace(m[name]))
	if err != nil {
		return false, fmt.Errorf("%s: setting %s: %q is not true or false", eng, name, m[name])
	}
	return v, nil
}

// CapMiB returns the share 1/div of a memory cap of capBytes in whole MiB, at least min (for
// Driver.CapDefaults).
func CapMiB(capBytes, div, min int64) int64 {
	return max(capBytes/div>>20, min)
}
