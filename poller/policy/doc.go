// Package policy decides when Dynamo polls its sources (docs/SCHEDULING.md).
//
// It is pure scheduling logic: no I/O, no clock (every function takes the
// current time), no global state. The live poller and the simulator
// (package simulate) drive the very same code, so what the simulator
// measures is what the poller does.
//
// # State: what is learnt
//
// State is the learnt state of one source: its posting rate λ, 24 hourly
// posting rates, its capacity S (how many items it shows), the intervals
// between content changes (smart's τ), which days had updates (weekday's
// history), and its error back-off. The poller updates it after EVERY
// poll, whatever the policy, so that a source can switch policy at any
// time and the new policy starts from everything learnt so far:
//
//	state, err := policy.LoadState(src.State.Schedule) // fresh if empty; on error, a fresh state
//	if pollErr != nil {
//		state.Fail(now, cfg, rnd) // consecutive errors, back-off with jitter
//	} else {
//		state.Learn(policy.Observation{
//			At:        now,
//			NewItems:  len(newItems), // items not seen before
//			ItemsSeen: itemsInDocument, // the capacity as served
//			Changed:   versionStored,
//			ItemDates: datesOfNewItems, // optional: places postings at their hour
//			NotBefore: maxAgeOrTTLFloor, // optional: the origin's freshness floor
//			Location:  sourceZone, // its weekdays are counted there
//		})
//	}
//	src.State.Schedule, err = policy.MarshalState(state)
//
// A push from the source's WebSub hub is learnt the same way, without
// being a poll: state.Pushed(policy.Push{At: now, NewItems: n, ItemDates:
// dates, Location: sourceZone}); while the subscription is active, the
// Source given to a policy says Push, and every policy then polls it only
// for safety (Config.PushSafety) and gives its polls to the others.
//
// # Policies: when to poll
//
// ByName builds a policy from its name (Names lists them) and a Config, a
// zero field of which takes its default (Default). Build each policy once
// with the global configuration; a source follows its own policy if it
// names one and the global one otherwise. What differs per source goes in
// Source: its interval (flat's interval, smart's starting τ), subscribers,
// min-delay weight, and NotBefore, a floor from outside the state such as
// a host's Retry-After. No policy ever returns a time before now, before
// NotBefore, before the state's error back-off (RetryAt) or before the
// origin's freshness floor (the Observation's NotBefore).
//
// Per-source policies (flat, smart, weekday) schedule a source from its
// own state alone: after each poll, its next poll is Policy.Next(src, now).
//
// Budget policies (uniform, min-delay, min-missing, hourly, at-risk)
// share Config.Budget polls per Config.Period among all the sources that
// follow them, so they must see those sources together: once per
// Config.Cycle, call Policy.Plan(sources, now) with every active source
// under the policy and store Plan.Next[i] as source i's next poll. After a
// poll, Next gives a provisional time (a source never polled is due now,
// any other one cycle later) that the next Plan replaces. AllocateExact,
// Ranks and Forecast expose the allocation, a ranking cycle and the
// weekday forecast on their own, for the `dynamo policy` command and the
// admin API; Steady builds the state of a steady source for what-if
// questions.
//
// See docs/SCHEDULING.md for the formulas, the defaults, the decisions
// taken where the specification is silent, and the simulator's comparison
// of the policies.
package policy
