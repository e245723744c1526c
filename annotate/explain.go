package annotate

import (
	"fmt"
	"io"
	"strings"
)

// Explain writes what the suggester chose and why: the structure
// annotated, the place of each field in its records, the channel, the
// notes, and the other candidates with why they lost.
func (r *Result) Explain(w io.Writer) error {
	var sb strings.Builder
	l := r.List
	fmt.Fprintf(&sb, "chosen: %s\n  %d items, score %.2f%s\n", l.Path, l.Records, l.Score, factorText(l.Factors))
	for _, f := range []struct{ name, place string }{
		{"title", l.Title}, {"link", l.Link}, {"description", l.Description}, {"date", l.Date},
	} {
		place := f.place
		if place == "" {
			place = "(none)"
		}
		fmt.Fprintf(&sb, "  %-12s %s\n", f.name+":", place)
	}
	for _, c := range r.Channel {
		fmt.Fprintf(&sb, "%s\n", c)
	}
	for _, n := range r.Notes {
		fmt.Fprintf(&sb, "note: %s\n", n)
	}
	if len(r.Others) == 0 {
		sb.WriteString("no other candidate\n")
	} else {
		sb.WriteString("other candidates, best first:\n")
	}
	for i, o := range r.Others {
		fmt.Fprintf(&sb, "  %d. %s\n     %d records, score %.2f: %s\n", i+2, o.Path, o.Records, o.Score, o.Why)
	}
	_, err := io.WriteString(w, sb.String())
	return err
}

func factorText(fs []Factor) string {
	if len(fs) == 0 {
		return ""
	}
	var parts []string
	for _, f := range fs {
		parts = append(parts, fmt.Sprintf("%s ×%.2f", f.Name, f.Value))
	}
	return " (" + strings.Join(parts, "; ") + ")"
}
