package dedup

// stopWords are English function words (and news's "said"/"says"): every
// story has them, so as single-word features they would pull unrelated
// stories together. They still count inside bigrams ("state of", "of the
// union"), where they carry phrasing. Only English is listed: a word that is
// a function word in one language is often a content word in another ("die",
// "also", "den"), and the cost of a missing stop word is only a little noise.
var stopWords = func() map[string]bool {
	m := make(map[string]bool)
	for _, w := range []string{
		"a", "about", "after", "again", "all", "also", "am", "an", "and", "any", "are", "as", "at",
		"be", "been", "before", "being", "but", "by", "can", "could", "did", "do", "does", "for",
		"from", "had", "has", "have", "he", "her", "hers", "him", "his", "how", "i", "if", "in",
		"into", "is", "it", "its", "itself", "just", "me", "more", "most", "my", "no", "nor", "not",
		"of", "off", "on", "once", "only", "or", "other", "our", "ours", "out", "over", "own",
		"said", "same", "says", "she", "should", "so", "some", "such", "than", "that", "the",
		"their", "theirs", "them", "then", "there", "these", "they", "this", "those", "through",
		"to", "too", "under", "until", "up", "very", "was", "we", "were", "what", "when", "where",
		"which", "while", "who", "whom", "why", "will", "with", "would", "you", "your", "yours",
	} {
		m[w] = true
	}
	return m
}()

func isStopWord(w string) bool { return stopWords[w] }
