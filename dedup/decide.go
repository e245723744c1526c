package dedup

// Rule names the rule that decided whether two items are one story. The
// names are stored with each duplicate and shown to readers, so they do
// not change.
type Rule string

// Rules that make a duplicate.
const (
	// RuleShort: one item has little text (no description of its own, or
	// fewer than Thresholds.ShortTerms terms) and the two are near-identical:
	// the same headline terms (words up to order, case and inflection, the
	// same names, the same numbers and dates in the same order), and every
	// term of the short one in the other.
	RuleShort Rule = "short-identical"
	// RuleText: the weighted Jaccard similarity of the two items' terms is
	// at least Thresholds.Text.
	RuleText Rule = "text"
	// RuleFacts: the weighted Jaccard similarity of the two items' facts
	// (names, numbers, days and months) is at least Thresholds.Facts, they
	// share facts weighing at least Thresholds.FactsWeight, they name the
	// same days and months (a sequel adds the day of its news), they share
	// a number (a story's figures pin it; names and days are shared by a
	// place's every notice of a week), and their whole texts' similarity
	// is at least Thresholds.TextOfFacts: another outlet's own wording of
	// the same facts.
	RuleFacts Rule = "facts"
)

// Rules that keep two items apart, when they are decisive.
const (
	// RuleCorrection: one item is a correction and the other is not: a
	// title's label says so ("CORRECTED-", "Correction:"), or its
	// description ("…, correcting an earlier toll of two").
	RuleCorrection Rule = "correction"
	// RuleNumbers: a number or a date of one title is nowhere in the
	// other item.
	RuleNumbers Rule = "numbers"
	// RuleDates: both items name days or months, and none the same.
	RuleDates Rule = "dates"
	// RuleOrder: the two headlines have the same terms, but their numbers
	// or dates in another order.
	RuleOrder Rule = "order"
	// RulePairings: the two items list fixtures or results, and each
	// names a pairing (two teams, with their scores in a result) that the
	// other does not: another round of a league, whose team names repeat.
	RulePairings Rule = "pairings"
	// RuleFigures: each item has at least two numbers the other has
	// nowhere, and they share fewer numbers than they have apart: another
	// edition of a template (a forecast, a market report, a table), whose
	// words repeat and whose figures are the news.
	RuleFigures Rule = "figures"
	// RuleNames: each headline names someone or something the other item
	// has nowhere: one team, firm or person with another opponent, partner
	// or place.
	RuleNames Rule = "names"
	// RuleEdition: the two headlines are the same, and each item has a
	// number or a date the other has nowhere: another edition under a
	// title that repeats (a collection round, tide times, a rating), whose
	// figures and days are the news. A copy or a light edit under one
	// headline keeps its story's figures and days; it may add or drop one
	// (a wire update, a cut sentence), not trade one for another.
	RuleEdition Rule = "edition"
	// RuleHeadlineNames: the two headlines are the same words with other
	// names: each names someone or something the other's headline does
	// not (the other item names it only in its description, or nowhere),
	// and they differ in nothing else. Another edition of a schedule or a
	// roster (which areas on which day, which side at home), whose words
	// and names repeat and whose pairing of them is the news.
	RuleHeadlineNames Rule = "headline-names"
	// RuleDifferent: no rule found them one story.
	RuleDifferent Rule = "different"
	// RuleEmpty: one item has no term to compare.
	RuleEmpty Rule = "empty"
)

// Decision is the verdict on a pair of items: whether they are one story,
// by which rule, and that rule's score (a similarity from 0 to 1; for the
// rules that keep items apart, the text similarity they overrode).
type Decision struct {
	Same  bool
	Rule  Rule
	Score float64
}

// Thresholds are the decision's parameters. DefaultThresholds were tuned on
// the tuning half of the labelled pairs (docs/DEDUP.md).
type Thresholds struct {
	NumberWeight int // weight of a term with a digit; other words weigh 1
	NameWeight   int // weight of a name (capitalized inside a sentence)
	ShortTerms   int // an item with fewer content terms is short

	Text        float64 // RuleText's least weighted Jaccard
	Facts       float64 // RuleFacts' least weighted Jaccard of facts
	FactsWeight float64 // RuleFacts' least weight of shared facts
	TextOfFacts float64 // RuleFacts' least weighted Jaccard of the texts
}

// DefaultThresholds are what Compare uses.
var DefaultThresholds = Thresholds{
	NumberWeight: 4,
	NameWeight:   3,
	ShortTerms:   10,
	Text:         0.675,
	Facts:        2, // above any similarity: the rule is off (docs/DEDUP.md, step 24)
	FactsWeight:  10,
	TextOfFacts:  0.45,
}

// factsRule reports whether RuleFacts can decide: no similarity reaches a
// Facts threshold above 1, which turns the rule off, and then the index
// makes no keys for it either (docs/DEDUP.md, "Candidates").
func (th Thresholds) factsRule() bool { return th.Facts <= 1 }

// Compare decides whether a and b are one story, with DefaultThresholds.
func Compare(a, b Profile) Decision { return DefaultThresholds.Compare(a, b) }

// overlap is what one merge of two profiles' terms measures.
type overlap struct {
	shared, union      float64 // weighted: Σ min, Σ max over the terms
	headA, headB       int     // headline terms (see hasTitle) only on one side
	allAOnly, allBOnly int     // terms only on one side
	numbersMissing     bool    // a title number or date of one is nowhere in the other
	numbersShared      int     // number terms (not dates) both have
	numbersA, numbersB int     // number terms only on one side
	figuresA, figuresB int     // number and date terms only on one side
	namesA, namesB     int     // headline names only on one side
	movedA, movedB     int     // headline names the other has only outside its headline
	datesA, datesB     int     // date terms of each
	datesShared        int
	factsShared        float64 // weighted, over names, numbers and dates
	factsUnion         float64
}

// Compare decides whether a and b are one story: see the rules above and
// docs/DEDUP.md.
func (th Thresholds) Compare(a, b Profile) Decision {
	if a.Empty() || b.Empty() {
		return Decision{Rule: RuleEmpty}
	}
	return th.decide(th.measure(a, b), a, b)
}

// decide applies the rules to what measure found.
func (th Thresholds) decide(o overlap, a, b Profile) Decision {
	text := ratio(o.shared, o.union)
	if a.flags&correction != b.flags&correction {
		return Decision{Rule: RuleCorrection, Score: text}
	}
	sameHeadline := o.headA == 0 && o.headB == 0
	if sameHeadline && a.order != b.order {
		return Decision{Rule: RuleOrder, Score: text}
	}
	if len(a.pairings) > 0 && len(b.pairings) > 0 && eachHasOwn(a.pairings, b.pairings) {
		return Decision{Rule: RulePairings, Score: text}
	}
	shortA, shortB := th.short(a), th.short(b)
	if shortA || shortB {
		same := sameHeadline &&
			(!shortA || o.allAOnly == 0) && (!shortB || o.allBOnly == 0)
		if same {
			return Decision{Same: true, Rule: RuleShort, Score: 1}
		}
		return Decision{Rule: RuleDifferent, Score: text}
	}
	if o.numbersMissing {
		return Decision{Rule: RuleNumbers, Score: text}
	}
	if o.datesA > 0 && o.datesB > 0 && o.datesShared == 0 {
		return Decision{Rule: RuleDates, Score: text}
	}
	if o.numbersA >= 2 && o.numbersB >= 2 && o.numbersShared < o.numbersA+o.numbersB {
		return Decision{Rule: RuleFigures, Score: text}
	}
	if sameHeadline && o.figuresA > 0 && o.figuresB > 0 {
		return Decision{Rule: RuleEdition, Score: text}
	}
	if o.namesA > 0 && o.namesB > 0 {
		return Decision{Rule: RuleNames, Score: text}
	}
	if nA, nB := o.namesA+o.movedA, o.namesB+o.movedB; nA > 0 && nB > 0 && o.headA == nA && o.headB == nB {
		return Decision{Rule: RuleHeadlineNames, Score: text}
	}
	if text >= th.Text {
		return Decision{Same: true, Rule: RuleText, Score: text}
	}
	// The facts rule wants the same facts: the same days, not a number on
	// each side that the other lacks, and a number shared: one entity's
	// other story on the same day shares its names and day, not its
	// figures, and a place's every notice of one week shares its name and
	// days (bathing water rated good on Monday, poor on Thursday; one
	// airport's controllers and its baggage handlers striking on one
	// Thursday): a figure is what pins a story.
	sameFacts := o.datesShared == o.datesA && o.datesShared == o.datesB && (o.numbersA == 0 || o.numbersB == 0) &&
		o.numbersShared > 0
	if facts := ratio(o.factsShared, o.factsUnion); facts >= th.Facts && o.factsShared >= th.FactsWeight && text >= th.TextOfFacts && sameFacts {
		return Decision{Same: true, Rule: RuleFacts, Score: facts}
	}
	return Decision{Rule: RuleDifferent, Score: text}
}

// eachHasOwn reports whether each of two sorted sets has an element the
// other has not.
func eachHasOwn(a, b []uint32) bool {
	aOwn, bOwn := false, false
	i, j := 0, 0
	for i < len(a) || j < len(b) {
		switch {
		case j == len(b) || i < len(a) && a[i] < b[j]:
			aOwn = true
			i++
		case i == len(a) || b[j] < a[i]:
			bOwn = true
			j++
		default:
			i++
			j++
		}
	}
	return aOwn && bOwn
}

func ratio(a, b float64) float64 {
	if b == 0 {
		return 0
	}
	return a / b
}

// short reports whether a profile has too little text to be compared by
// similarity: no description of its own or few terms.
func (th Thresholds) short(p Profile) bool {
	_, content := p.Terms()
	return p.flags&hasBody == 0 || content < th.ShortTerms
}

// hasTitle reports whether the item has a title with a content term. An
// item's headline is its title's content terms, or, without a title, all
// its terms.
func (p Profile) hasTitle() bool {
	for _, t := range p.terms {
		if t&inTitle != 0 && t&affixOnly == 0 {
			return true
		}
	}
	return false
}

func (th Thresholds) weight(t term) float64 {
	switch t.class() {
	case classNumber, classDate:
		return float64(th.NumberWeight)
	case className:
		return float64(th.NameWeight)
	}
	return 1
}

// measure merges the two sorted term lists. A term that only one side has
// and has only in an affix is not counted at all: a wire label on one copy
// says nothing against the other. A term both have weighs its stronger
// class on both sides.
func (th Thresholds) measure(a, b Profile) overlap {
	var o overlap
	aTitled, bTitled := a.hasTitle(), b.hasTitle()
	i, j := 0, 0
	for i < len(a.terms) || j < len(b.terms) {
		var ta, tb term
		inA, inB := false, false
		switch {
		case j == len(b.terms) || i < len(a.terms) && a.terms[i].hash() < b.terms[j].hash():
			ta, inA = a.terms[i], true
			i++
		case i == len(a.terms) || b.terms[j].hash() < a.terms[i].hash():
			tb, inB = b.terms[j], true
			j++
		default:
			ta, tb, inA, inB = a.terms[i], b.terms[j], true, true
			i++
			j++
		}
		headA, headB := inA && (ta&inTitle != 0 || !aTitled), inB && (tb&inTitle != 0 || !bTitled)
		if inA && ta.class() == classDate && ta&affixOnly == 0 {
			o.datesA++
		}
		if inB && tb.class() == classDate && tb&affixOnly == 0 {
			o.datesB++
		}
		if inA && inB && ta.class() == classDate {
			o.datesShared++
		}
		if inA && inB && ta.class() == classNumber {
			o.numbersShared++
		}
		switch {
		case inA && inB:
			w := max(th.weight(ta), th.weight(tb))
			if ta.class() != classWord || tb.class() != classWord {
				o.factsShared += w
				o.factsUnion += w
			}
			o.shared += w
			o.union += w
			if headA != headB && ta&affixOnly == 0 && tb&affixOnly == 0 {
				// A headline term of one that is only in the other's body.
				name := ta.class() == className || tb.class() == className
				if headA {
					o.headA++
					if name {
						o.movedA++
					}
				} else {
					o.headB++
					if name {
						o.movedB++
					}
				}
			}
		case inA && ta&affixOnly == 0:
			w := th.weight(ta)
			if ta.class() != classWord {
				o.factsUnion += w
			}
			o.union += w
			o.allAOnly++
			if ta.class() == classNumber {
				o.numbersA++
			}
			if ta.class() == classNumber || ta.class() == classDate {
				o.figuresA++
			}
			if headA {
				o.headA++
				o.numbersMissing = o.numbersMissing || ta.class() == classNumber || ta.class() == classDate
				if ta.class() == className {
					o.namesA++
				}
			}
		case inB && tb&affixOnly == 0:
			w := th.weight(tb)
			if tb.class() != classWord {
				o.factsUnion += w
			}
			o.union += w
			o.allBOnly++
			if tb.class() == classNumber {
				o.numbersB++
			}
			if tb.class() == classNumber || tb.class() == classDate {
				o.figuresB++
			}
			if headB {
				o.headB++
				o.numbersMissing = o.numbersMissing || tb.class() == classNumber || tb.class() == classDate
				if tb.class() == className {
					o.namesB++
				}
			}
		}
	}
	return o
}
