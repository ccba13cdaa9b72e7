package repair_test

import (
	"strings"
	"testing"

	"github.com/provenant/provenant/answer"
	"github.com/provenant/provenant/repair"
)

func FuzzParseRetries(f *testing.F) {
	for _, s := range []string{"0", "2", "3", "4", "-1", "02", "", "1e0"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		n, err := repair.ParseRetries(s)
		if err != nil {
			if len(s) > 0 && strings.Contains(err.Error(), s) && !strings.Contains("parse retries: want an integer from 0 to 3", s) {
				t.Fatalf("error %q echoes the input", err)
			}
			return
		}
		if n < 0 || n > repair.MaxRetries || s != string(rune('0'+n)) {
			t.Fatalf("ParseRetries(%q) = %d", s, n)
		}
	})
}

func FuzzParseClass(f *testing.F) {
	for _, c := range answer.FailureClasses {
		f.Add(string(c))
	}
	f.Add("timeout")
	f.Fuzz(func(t *testing.T, s string) {
		c, err := repair.ParseClass(s)
		if err == nil && (string(c) != s || !repair.IsClass(c)) {
			t.Fatalf("ParseClass(%q) = %q", s, c)
		}
	})
}

// A secret planted in any part of a failure never reaches the message.
func FuzzMessage(f *testing.F) {
	f.Add("SELECT 1", "detail", "snippet", "def", "hunter2secret")
	f.Add("password=", "", "", "", "abcdefgh")
	f.Fuzz(func(t *testing.T, sql, detail, snippet, def, secret string) {
		if len(secret) < 8 || strings.ContainsAny(secret, " \t\r\n\"',;&:=/@\\") || !isWordy(secret) {
			return
		}
		for _, planted := range []string{"password=" + secret, "api_key: " + secret, "Bearer " + secret, "postgres://u:" + secret + "@h/db"} {
			msg, err := repair.Message(repair.Failure{Class: answer.ReasonSQLError, SQL: sql + " " + planted, Detail: detail, Snippet: snippet, Definition: def})
			if err != nil {
				t.Fatal(err)
			}
			rest := strings.ReplaceAll(strings.ReplaceAll(strings.ReplaceAll(sql+detail+snippet+def, "\r", ""), "\x00", ""), "\uFFFD", "")
			if strings.Contains(msg, secret) && !strings.Contains(rest, secret) && !strings.Contains(hintText, secret) {
				t.Fatalf("message holds the planted secret %q", secret)
			}
		}
	})
}

const hintText = "Your previous proposal failed verification with failure class sql_error: the query failed while it ran. What failed Failing SQL Catalog Metric definition Propose a corrected call from the same menu, or abstain if the question cannot be answered."

func isWordy(s string) bool {
	for _, r := range s {
		if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '_' || r == '-' || r == '.') {
			return false
		}
	}
	return true
}
