package inbox

import (
	"encoding/json"
	"errors"
	"reflect"
	"strings"
	"testing"

	"github.com/mcptray/mcptray/mcp"
)

// typesForm has every field type the 2025-11-25 elicitation schema allows
// (the asker fake's "types" form), in a deliberate, non-alphabetical order.
const typesForm = `{"type":"object","properties":{
	"name":{"type":"string","title":"Name","minLength":2,"maxLength":20},
	"email":{"type":"string","title":"Email","format":"email"},
	"site":{"type":"string","format":"uri"},
	"born":{"type":"string","format":"date"},
	"meeting":{"type":"string","format":"date-time"},
	"age":{"type":"integer","minimum":0,"maximum":150},
	"score":{"type":"number","minimum":0,"maximum":10},
	"subscribe":{"type":"boolean","title":"Subscribe?"},
	"color":{"type":"string","enum":["red","green","blue"]},
	"size":{"type":"string","oneOf":[{"const":"s","title":"Small"},{"const":"l","title":"Large"}]},
	"plan":{"type":"string","enum":["f","p"],"enumNames":["Free","Pro"]},
	"tags":{"type":"array","items":{"type":"string","enum":["a","b","c"]},"minItems":1,"maxItems":2},
	"pets":{"type":"array","items":{"anyOf":[{"const":"cat","title":"Cat"},{"const":"dog","title":"Dog"}]}},
	"password":{"type":"string","format":"password"}
},"required":["name","age","color"]}`

func fieldsOf(t *testing.T, schema string) []Field {
	t.Helper()
	fields, err := FormFields(json.RawMessage(schema), nil, mcp.SecretFields(decode(t, schema)))
	if err != nil {
		t.Fatal(err)
	}
	return fields
}

func decode(t *testing.T, s string) map[string]any {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal([]byte(s), &m); err != nil {
		t.Fatal(err)
	}
	return m
}

func TestFormFieldsReadEveryType(t *testing.T) {
	fields := fieldsOf(t, typesForm)
	var names []string
	for _, f := range fields {
		names = append(names, f.Name+":"+f.Type)
	}
	want := "name:string email:string site:string born:string meeting:string age:integer score:number subscribe:boolean color:string size:string plan:string tags:array pets:array password:string"
	if got := strings.Join(names, " "); got != want {
		t.Errorf("fields in order:\n got %s\nwant %s", got, want)
	}
	by := map[string]Field{}
	for _, f := range fields {
		by[f.Name] = f
	}
	if f := by["name"]; !f.Required || f.Title != "Name" || *f.MinLength != 2 || *f.MaxLength != 20 || f.Secret {
		t.Errorf("name: %+v", f)
	}
	if f := by["age"]; !f.Required || *f.Minimum != 0 || *f.Maximum != 150 {
		t.Errorf("age: %+v", f)
	}
	if f := by["size"]; !reflect.DeepEqual(f.Options, []Option{{"s", "Small"}, {"l", "Large"}}) {
		t.Errorf("size (oneOf): %+v", f.Options)
	}
	if f := by["plan"]; !reflect.DeepEqual(f.Options, []Option{{"f", "Free"}, {"p", "Pro"}}) {
		t.Errorf("plan (enumNames): %+v", f.Options)
	}
	if f := by["tags"]; len(f.Options) != 3 || *f.MinItems != 1 || *f.MaxItems != 2 {
		t.Errorf("tags: %+v", f)
	}
	if f := by["pets"]; !reflect.DeepEqual(f.Options, []Option{{"cat", "Cat"}, {"dog", "Dog"}}) {
		t.Errorf("pets (items.anyOf): %+v", f.Options)
	}
	if !by["password"].Secret || by["color"].Secret {
		t.Errorf("secret flags: password %v, color %v", by["password"].Secret, by["color"].Secret)
	}
}

// The conformance scenario elicitation-sep1034-client-defaults: accepting
// with no values sends every default, with its JSON type.
func TestDefaultsFillAnEmptyAnswer(t *testing.T) {
	fields := fieldsOf(t, `{"type":"object","properties":{
		"name":{"type":"string","default":"John Doe"},
		"age":{"type":"integer","default":30},
		"score":{"type":"number","default":95.5},
		"status":{"type":"string","enum":["active","inactive","pending"],"default":"active"},
		"verified":{"type":"boolean","default":true}}}`)
	got, err := answerContent(fields, nil)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := json.Marshal(got)
	if want := `{"age":30,"name":"John Doe","score":95.5,"status":"active","verified":true}`; string(b) != want {
		t.Errorf("content %s, want %s", b, want)
	}
}

func TestAnswerValidation(t *testing.T) {
	fields := fieldsOf(t, typesForm)
	good := map[string]any{"name": "Ada", "age": "36", "color": "Green", "email": "ada@example.com",
		"site": "https://example.com/x", "born": "1815-12-10", "meeting": "2026-07-03T14:30:00Z",
		"score": "9.5", "subscribe": "yes", "size": "Large", "plan": "Pro", "tags": "a, c", "pets": []any{"dog"},
		"password": "hunter2"}
	got, err := answerContent(fields, good)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]any{"name": "Ada", "age": int64(36), "color": "green", "email": "ada@example.com",
		"site": "https://example.com/x", "born": "1815-12-10", "meeting": "2026-07-03T14:30:00Z",
		"score": 9.5, "subscribe": true, "size": "l", "plan": "p", "tags": []string{"a", "c"}, "pets": []string{"dog"},
		"password": "hunter2"}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("content\n got %#v\nwant %#v", got, want)
	}

	// Every bad value is refused with the field and a reason a person can
	// act on, and never with the value itself.
	for _, tc := range []struct {
		field string
		value any
		want  string
	}{
		{"name", "A", `field "name" must be at least 2 characters long`},
		{"name", strings.Repeat("é", 21), `field "name" must be at most 20 characters long`},
		{"name", 12, `field "name" must be text`},
		{"email", "not-an-address", `field "email" must be an email address like name@example.com`},
		{"email", "Ada <ada@example.com>", `field "email" must be an email address like name@example.com`},
		{"site", "example.com/x", `field "site" must be a URI like https://example.com/page`},
		{"born", "10/12/1815", `field "born" must be a date like 2026-07-03`},
		{"meeting", "2026-07-03 14:30", `field "meeting" must be a date and time like 2026-07-03T14:30:00Z`},
		{"age", "36.5", `field "age" must be a whole number`},
		{"age", "old", `field "age" must be a number`},
		{"age", "-1", `field "age" must be at least 0`},
		{"age", 151, `field "age" must be at most 150`},
		{"score", "NaN", `field "score" must be a number`},
		{"subscribe", "perhaps", `field "subscribe" must be yes or no (true or false)`},
		{"color", "purple", `field "color" must be one of red, green, blue`},
		{"tags", []any{}, `field "tags" needs at least 1 choice(s)`},
		{"tags", "a,b,c", `field "tags" takes at most 2 choice(s)`},
		{"tags", "a,a", `field "tags" lists "a" twice`},
		{"tags", "z", `field "tags" must be one of a, b, c`},
		{"pets", []any{1}, `field "pets" must be a list of choices`},
		{"nosuch", "x", `field "nosuch" is not in the form`},
	} {
		answer := map[string]any{}
		for k, v := range good {
			answer[k] = v
		}
		answer[tc.field] = tc.value
		_, err := answerContent(fields, answer)
		var inv *InvalidAnswerError
		if !errors.As(err, &inv) || err.Error() != tc.want || inv.Field != tc.field {
			t.Errorf("%s=%v: %v, want %q", tc.field, tc.value, err, tc.want)
		}
	}
	// A missing required field.
	answer := map[string]any{"name": "Ada", "color": "red"}
	if _, err := answerContent(fields, answer); err == nil || err.Error() != `field "age" is required` {
		t.Errorf("missing age: %v", err)
	}
	// Empty values of non-string fields count as not given.
	answer = map[string]any{"name": "Ada", "age": "1", "color": "red", "score": "", "subscribe": ""}
	if got, err := answerContent(fields, answer); err != nil || got["score"] != nil || got["subscribe"] != nil {
		t.Errorf("empty optional values: %v %v", got, err)
	}
}

func TestSecretDefaultStaysOutOfJSON(t *testing.T) {
	fields := fieldsOf(t, `{"type":"object","properties":{
		"token":{"type":"string","default":"tok-default-value"},
		"user":{"type":"string","default":"ada"}}}`)
	b, _ := json.Marshal(fields)
	if strings.Contains(string(b), "tok-default-value") || !strings.Contains(string(b), `"default":"ada"`) || !strings.Contains(string(b), `"hasDefault":true`) {
		t.Errorf("fields JSON: %s", b)
	}
}

func TestFormFieldsRefuseNonObjects(t *testing.T) {
	if _, err := FormFields(json.RawMessage(`{"type":"array"}`), nil, nil); err == nil || err.Error() != `reading the form: the schema's type is "array", not object` {
		t.Errorf("array schema: %v", err)
	}
	if _, err := FormFields(json.RawMessage(`{"properties":{"a":1}}`), nil, nil); err == nil || err.Error() != `reading the form: property "a" is not an object` {
		t.Errorf("bad property: %v", err)
	}
	// No raw bytes: the decoded map is read (keys in name order).
	fields, err := FormFields(nil, map[string]any{"properties": map[string]any{"b": map[string]any{"type": "string"}, "a": map[string]any{"type": "boolean"}}}, nil)
	if err != nil || len(fields) != 2 || fields[0].Name != "a" {
		t.Errorf("from a map: %+v %v", fields, err)
	}
}
