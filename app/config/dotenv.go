package config

import (
	"fmt"
	"strings"
)

// parseDotenv reads an envFile: KEY=VALUE lines, an optional "export "
// prefix, # comments, blank lines, and values that are unquoted (trimmed,
// ending at " #"), 'single-quoted' (literal), "double-quoted" (with \n, \r,
// \t, \", \\ escapes) or `backquoted` (literal); quoted values may span lines.
// Variables in values are not expanded. Errors name the line, never its text.
func parseDotenv(text string) (map[string]string, error) {
	text = strings.TrimPrefix(text, "\uFEFF")
	text = strings.ReplaceAll(text, "\r\n", "\n")
	env := map[string]string{}
	lines := strings.Split(text, "\n")
	for i := 0; i < len(lines); i++ {
		lineNo := i + 1
		line := strings.TrimSpace(lines[i])
		if line == "" || line[0] == '#' {
			continue
		}
		if rest, ok := strings.CutPrefix(line, "export "); ok {
			line = strings.TrimLeft(rest, " \t")
		}
		key, value, ok := strings.Cut(line, "=")
		key = strings.TrimSpace(key)
		if !ok || !isEnvKey(key) {
			return nil, fmt.Errorf("line %d: want KEY=VALUE", lineNo)
		}
		value = strings.TrimLeft(value, " \t")
		if value == "" {
			env[key] = ""
			continue
		}
		switch q := value[0]; q {
		case '"', '\'', '`':
			body := value[1:]
			for {
				if end := closingQuote(body, q); end >= 0 {
					if after := strings.TrimSpace(body[end+1:]); after != "" && after[0] != '#' {
						return nil, fmt.Errorf("line %d: unexpected text after the closing quote", lineNo)
					}
					body = body[:end]
					break
				}
				if i+1 >= len(lines) {
					return nil, fmt.Errorf("line %d: quoted value is not closed", lineNo)
				}
				i++
				body += "\n" + lines[i]
			}
			if q == '"' {
				body = unescapeDouble(body)
			}
			env[key] = body
		default:
			if k := strings.Index(value, " #"); k >= 0 {
				value = value[:k]
			}
			if k := strings.Index(value, "\t#"); k >= 0 {
				value = value[:k]
			}
			env[key] = strings.TrimSpace(value)
		}
	}
	return env, nil
}

// closingQuote returns the index in s of the quote q that closes the value,
// skipping backslash escapes inside double quotes, or -1.
func closingQuote(s string, q byte) int {
	for i := 0; i < len(s); i++ {
		if q == '"' && s[i] == '\\' {
			i++
			continue
		}
		if s[i] == q {
			return i
		}
	}
	return -1
}

func unescapeDouble(s string) string {
	if !strings.Contains(s, `\`) {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] != '\\' || i+1 == len(s) {
			b.WriteByte(s[i])
			continue
		}
		i++
		switch s[i] {
		case 'n':
			b.WriteByte('\n')
		case 'r':
			b.WriteByte('\r')
		case 't':
			b.WriteByte('\t')
		case '"', '\\', '$':
			b.WriteByte(s[i])
		default:
			b.WriteByte('\\')
			b.WriteByte(s[i])
		}
	}
	return b.String()
}

// isEnvKey accepts the names dotenv files use: letters, digits, _ . and -,
// not starting with a digit.
func isEnvKey(s string) bool {
	if s == "" || s[0] >= '0' && s[0] <= '9' {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(c == '_' || c == '.' || c == '-' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9') {
			return false
		}
	}
	return true
}
