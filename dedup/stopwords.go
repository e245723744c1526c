package dedup

// stopWords are function words: every story has them, so as terms they
// would pull unrelated stories together. English (with news's
// "said"/"says"), and the commonest of German, French, Spanish, Italian,
// Portuguese and Dutch, where the labelled set's stories in those languages
// showed them making up a fifth of a short description. Words that are
// content words in English are left out of the other languages' lists
// ("die", "war", "hat", "man", "son", "fin"), and negations are never stop
// words in any language ("not", "no", "nicht", "pas", "non", "não"): "Plot
// 12 is not free" is another story than "Plot 12 is free". Nor are words of
// direction and sequence ("up", "over", "under", "off", "out", "before",
// "after"): "Pool open before school" is another notice than "Pool open
// after school". "Percent" and "pct" are, since the sign "%" is no term.
var stopWords = func() map[string]bool {
	m := make(map[string]bool)
	for _, list := range [][]string{
		{ // English
			"a", "about", "again", "all", "also", "am", "an", "and", "any", "are", "as", "at",
			"be", "been", "being", "but", "by", "can", "could", "did", "do", "does", "for",
			"from", "had", "has", "have", "he", "her", "hers", "him", "his", "how", "i", "if", "in",
			"into", "is", "it", "its", "itself", "just", "me", "more", "most", "my",
			"of", "on", "once", "only", "or", "other", "our", "ours", "own",
			"said", "same", "says", "she", "should", "so", "some", "such", "than", "that", "the",
			"their", "theirs", "them", "then", "there", "these", "they", "this", "those", "through",
			"to", "too", "until", "very", "was", "we", "were", "what", "when", "where",
			"which", "while", "who", "whom", "why", "will", "with", "would", "you", "your", "yours",
			"percent", "pct", // the sign "%" is no term, so neither is its word
		},
		{ // German
			"der", "das", "den", "dem", "des", "ein", "eine", "einen", "einem", "einer", "eines",
			"und", "oder", "ist", "sind", "wird", "werden", "wurde", "wurden", "mit", "von", "zu",
			"zum", "zur", "auf", "im", "bei", "aus", "nach", "sich", "auch", "es", "sie", "er",
			"dass", "fur", "uber", "wie", "als", "noch", "nur", "vor", "einem", "haben", "sei",
		},
		{ // French
			"le", "la", "les", "de", "des", "du", "un", "une", "et", "en", "est", "que", "qui", "dans",
			"pour", "par", "sur", "au", "aux", "ce", "cette", "il", "elle", "ils", "plus", "sa",
			"ses", "avec", "ete", "sont", "ou", "leur", "selon", "l", "d", "qu",
		},
		{ // Spanish
			"el", "los", "las", "del", "y", "por", "con", "para", "es", "se", "su", "sus", "al",
			"lo", "como", "mas", "pero", "fue", "ha", "han", "una", "segun",
		},
		{ // Italian
			"il", "lo", "gli", "di", "della", "dei", "delle", "degli", "che", "e", "per", "da",
			"su", "alla", "sono", "nel", "nella", "ha",
		},
		{ // Portuguese
			"o", "os", "as", "do", "da", "dos", "das", "em", "um", "uma", "com", "na", "ao", "foi",
		},
		{ // Dutch
			"het", "een", "van", "en", "op", "te", "voor", "met", "zijn", "werd", "naar", "bij",
		},
	} {
		for _, w := range list {
			m[w] = true
		}
	}
	return m
}()

func isStopWord(w string) bool { return stopWords[w] }
