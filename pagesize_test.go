package dynamo

import (
	"errors"
	"strings"
	"testing"
)

func TestPageSizeRule(t *testing.T) {
	if MaxAnnotatedPageBytes != MaxPageBytes+AnnotationRoomBytes || AnnotationRoomBytes < MaxPageBytes {
		t.Fatalf("a page at the limit has %d bytes of room for its annotations, want at least its own %d", AnnotationRoomBytes, MaxPageBytes)
	}
	tests := []struct {
		name            string
		page, annotated int
		pageOK, fits    bool
	}{
		{"small", 1000, 1400, true, true},
		{"at the page limit, annotations as large as the page", MaxPageBytes, 2 * MaxPageBytes, true, true},
		{"one byte over the page limit", MaxPageBytes + 1, MaxPageBytes + 2, false, true},
		{"annotated one byte over", MaxPageBytes, MaxAnnotatedPageBytes + 1, true, false},
		{"a small dense page with more annotations than room", 4 << 20, MaxAnnotatedPageBytes + 1, true, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := CheckPage(tt.page)
			if (err == nil) != tt.pageOK || (err != nil && (!errors.Is(err, ErrPageTooLarge) || !strings.Contains(err.Error(), "at most 10485760 (10 MiB)"))) {
				t.Errorf("CheckPage(%d) = %v, want ok %v", tt.page, err, tt.pageOK)
			}
			err = CheckAnnotated(tt.page, tt.annotated, MaxAnnotatedPageBytes)
			if (err == nil) != tt.fits || (err != nil && (!errors.Is(err, ErrPageTooLarge) || !strings.Contains(err.Error(), "more than the 20971520 (20 MiB)"))) {
				t.Errorf("CheckAnnotated(%d, %d) = %v, want ok %v", tt.page, tt.annotated, err, tt.fits)
			}
		})
	}
}
