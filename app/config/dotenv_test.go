package config

import (
	"reflect"
	"testing"
)

func TestParseDotenv(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, text string
		want       map[string]string
	}{
		{"plain", "A=1\nB=two\n", map[string]string{"A": "1", "B": "two"}},
		{"comments and blanks", "# top\n\n  # indented\nA=1 # trailing\nB=x#not-a-comment\n", map[string]string{"A": "1", "B": "x#not-a-comment"}},
		{"export", "export A=1\nexport  B = 2 \n", map[string]string{"A": "1", "B": "2"}},
		{"empty", "A=\nB=  \n", map[string]string{"A": "", "B": ""}},
		{"double quotes", `A="x y"` + "\n" + `B="l1\nl2 \"q\" \\ \$"` + "\n", map[string]string{"A": "x y", "B": "l1\nl2 \"q\" \\ $"}},
		{"single quotes literal", `A='x\n ${B} # no'` + "\n", map[string]string{"A": `x\n ${B} # no`}},
		{"backquotes", "A=`it's`\n", map[string]string{"A": "it's"}},
		{"comment after quotes", `A="x" # c` + "\n", map[string]string{"A": "x"}},
		{"multi-line", "KEY=\"-----BEGIN-----\nabc\n-----END-----\"\nB=1\n", map[string]string{"KEY": "-----BEGIN-----\nabc\n-----END-----", "B": "1"}},
		{"CRLF and BOM", "\uFEFFA=1\r\nB=2\r\n", map[string]string{"A": "1", "B": "2"}},
		{"equals in value", "URL=https://h/?a=b\n", map[string]string{"URL": "https://h/?a=b"}},
		{"dots and dashes in keys", "a.b-c=1\n", map[string]string{"a.b-c": "1"}},
		{"last wins", "A=1\nA=2\n", map[string]string{"A": "2"}},
		{"no variables expanded", "A=${HOME}\n", map[string]string{"A": "${HOME}"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := parseDotenv(tt.text)
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("got %q, want %q", got, tt.want)
			}
		})
	}
}

func TestParseDotenvErrors(t *testing.T) {
	t.Parallel()
	tests := []struct{ text, want string }{
		{"A=1\nnot a pair " + secretVar + "\n", "line 2: want KEY=VALUE"},
		{"=1\n", "line 1: want KEY=VALUE"},
		{"1A=1\n", "line 1: want KEY=VALUE"},
		{"A B=1\n", "line 1: want KEY=VALUE"},
		{"A=\"" + secretVar + "\nB=2\n", "line 1: quoted value is not closed"},
		{"A='x' " + secretVar + "\n", "line 1: unexpected text after the closing quote"},
	}
	for _, tt := range tests {
		_, err := parseDotenv(tt.text)
		if errText(err) != tt.want {
			t.Errorf("%q: err = %s, want %s", tt.text, errText(err), tt.want)
		}
		assertNoSecret(t, errText(err))
	}
}
