package sqlstore

import (
	"errors"
	"strings"
	"testing"
)

func TestCheckSchema(t *testing.T) {
	tests := []struct {
		name, in, want string
		wantErr        error
	}{
		{"empty means the default", "", DefaultSchema, nil},
		{"plain", "audit_2", "audit_2", nil},
		{"leading underscore", "_audit", "_audit", nil},
		{"63 bytes", strings.Repeat("a", 63), strings.Repeat("a", 63), nil},
		{"64 bytes", strings.Repeat("a", 64), "", ErrSchema},
		{"upper case", "Audit", "", ErrSchema},
		{"leading digit", "1audit", "", ErrSchema},
		{"quote", `audit"; DROP TABLE x; --`, "", ErrSchema},
		{"dot", "public.audit", "", ErrSchema},
		{"space", "audit log", "", ErrSchema},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := CheckSchema(tt.in)
			if got != tt.want || !errors.Is(err, tt.wantErr) {
				t.Errorf("CheckSchema = %q, %v; want %q, %v", got, err, tt.want, tt.wantErr)
			}
			if err != nil && strings.Contains(err.Error(), tt.in) {
				t.Errorf("the error quotes the rejected name: %v", err)
			}
		})
	}
}
