package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/netip"
	"net/url"
	"os"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/dynamo-feeds/dynamo"
	"github.com/dynamo-feeds/dynamo/api"
	"github.com/dynamo-feeds/dynamo/auth"
	"github.com/dynamo-feeds/dynamo/dedup"
	"github.com/dynamo-feeds/dynamo/discovery"
	"github.com/dynamo-feeds/dynamo/httpcompress"
	"github.com/dynamo-feeds/dynamo/internal/buildinfo"
	"github.com/dynamo-feeds/dynamo/limits"
	"github.com/dynamo-feeds/dynamo/metrics"
	"github.com/dynamo-feeds/dynamo/poller"
	pollfetch "github.com/dynamo-feeds/dynamo/poller/fetch"
	"github.com/dynamo-feeds/dynamo/poller/policy"
	"github.com/dynamo-feeds/dynamo/poller/robots"
	"github.com/dynamo-feeds/dynamo/sources"
	"github.com/dynamo-feeds/dynamo/storage"
	"github.com/dynamo-feeds/dynamo/storage/postgres"
	"github.com/dynamo-feeds/dynamo/web"
)

func init() {
	register("serve", "run the HTTP interface and the poller", runServe)
}

// serveConfig is what the serve command's flags say.
type serveConfig struct {
	addr         string
	db           string
	replicas     []string // --db-replica: hot standbys of db that answer reads
	sourcesFile  string
	role         string
	allowPrivate bool
	demo         bool
	policy       string
	workers      int
	// uaContact is --user-agent-contact, added to the User-Agent.
	uaContact string
	// tuning is what the budget policies share and how they weigh
	// subscribers (poller/policy.Config); zero fields take the defaults.
	tuning policy.Config
	// duplicates is near-duplicate detection's window and strictness.
	duplicates dedup.Config
	// cacheBytes bounds the API's cache of rendered answers, as
	// api.Config.CacheBytes reads it: 0 for its default, negative for none.
	cacheBytes int64
	// demoEvery and demoPoll, when set, replace the demo's pace (a new
	// story every demoEvery, polled every demoPoll) for tests.
	demoEvery, demoPoll time.Duration
	// websubMinLease and websubMaxLease bound the leases Dynamo's WebSub
	// hub grants (--websub-min-lease, --websub-max-lease).
	websubMinLease, websubMaxLease time.Duration
	// budgets bounds the work of anonymous clients and of one version
	// (--max-items, --max-answer-mib, --heavy-reads, --read-timeout,
	// --write-timeout); zero fields take the defaults.
	budgets budgets
	// publicURL is the canonical origin (--public-url): feed and self
	// links use it, and every change needs the admin token.
	publicURL string
	// trustedProxies are the --trusted-proxy networks, whose
	// X-Forwarded-* headers are believed.
	trustedProxies []netip.Prefix
	// hostGap, when set, replaces the fetcher's gap between requests to
	// one host (negative: none), for tests whose origins share 127.0.0.1.
	hostGap time.Duration
	// help is set when the flags asked for the usage (-h, --help), which
	// exits 0 rather than as a mistake.
	help bool
	// logLevel, logFormat ("text" or "json") and accessLog are how serve
	// logs (docs/OPERATIONS.md "Logs").
	logLevel  slog.Level
	logFormat string
	accessLog bool
	// displayZone is --display-timezone: the zone the web pages show
	// times in for viewers who chose none.
	displayZone *time.Location
}

const serveUsage = `usage: dynamo serve [--addr 127.0.0.1:8080] [--db DSN] [--sources FILE]
                    [--role all|api|poller] [--allow-private] [--demo]
                    [--public-url URL] [--trusted-proxy CIDR]...
                    [--user-agent-contact URL]

Serves the web interface (/ui/), the feeds and the admin API, and polls the
sources. --db (or DATABASE_URL) is a postgres:// URL or the embedded store's
file (default dynamo.db in the working directory); --db-replica (repeatable)
sends reads to hot standbys of --db's PostgreSQL server. --demo serves the example
pages from a site on loopback and registers them, so there is something to
look at at once: its news page and wire feed gain a story every 20 seconds
and are polled every 10, so versions and the archive fill up as you watch.
`

func parseServeArgs(args []string, errOut io.Writer) (serveConfig, bool) {
	cfg := serveConfig{}
	fs := flag.NewFlagSet("serve", flag.ContinueOnError)
	fs.SetOutput(errOut)
	fs.Usage = func() { fmt.Fprint(errOut, serveUsage); fs.PrintDefaults() }
	fs.StringVar(&cfg.addr, "addr", "127.0.0.1:8080", "address to listen on")
	fs.StringVar(&cfg.db, "db", "", "store: a postgres:// URL or a file for the embedded store (default $DATABASE_URL, else dynamo.db)")
	fs.Func("db-replica", "a postgres:// URL of a hot standby of --db's server to send reads to (repeatable; docs/STORAGE.md)", func(v string) error {
		cfg.replicas = append(cfg.replicas, v)
		return nil
	})
	fs.StringVar(&cfg.sourcesFile, "sources", "", "YAML or JSON file of sources to register or update at start")
	fs.StringVar(&cfg.role, "role", "all", "all, api (web interface, feeds and admin API; no polling) or poller (polling, with /healthz and /metrics)")
	fs.BoolVar(&cfg.allowPrivate, "allow-private", false, "allow fetching loopback, private and link-local addresses")
	fs.StringVar(&cfg.uaContact, "user-agent-contact", "", "a URL where webmasters can reach this instance's operator (https:, http: or mailto:), added to the User-Agent")
	fs.BoolVar(&cfg.demo, "demo", false, "serve and register the example pages (implies --allow-private)")
	fs.StringVar(&cfg.policy, "policy", "", "global scheduling policy until one is set through the API (default smart, or at-risk with --budget)")
	fs.IntVar(&cfg.workers, "workers", 8, "sources polled at once")
	fs.TextVar(&cfg.logLevel, "log-level", slog.LevelInfo, "least level logged: debug (every poll), info (start-up, stored versions, failure streaks, shutdown), warn or error")
	fs.StringVar(&cfg.logFormat, "log-format", "text", "log lines as text (key=value) or json (one object per line)")
	fs.BoolVar(&cfg.accessLog, "access-log", false, "log one line per HTTP request: method, route, path, status, bytes, duration, client address")
	cfg.displayZone = time.UTC
	fs.Func("display-timezone", "IANA zone the web pages show times in for viewers who chose none (default UTC)", func(v string) error {
		loc, err := time.LoadLocation(v)
		if err != nil || v == "Local" || v == "" {
			return fmt.Errorf("want an IANA zone name such as Europe/Paris or UTC, not %q", v)
		}
		cfg.displayZone = loc
		return nil
	})
	fs.DurationVar(&cfg.websubMinLease, "websub-min-lease", time.Hour, "the shortest lease Dynamo's WebSub hub grants")
	fs.DurationVar(&cfg.websubMaxLease, "websub-max-lease", 30*24*time.Hour, "the longest lease Dynamo's WebSub hub grants (none is perpetual)")
	fs.StringVar(&cfg.publicURL, "public-url", "", "the canonical URL Dynamo is reached at (e.g. https://feeds.example.org): feed and self links use it; every change then needs DYNAMO_ADMIN_TOKEN")
	fs.Func("trusted-proxy", "a reverse proxy's address or CIDR whose X-Forwarded-For/-Proto/-Host are believed (repeatable); without one, a proxied request never counts as local", func(v string) error {
		p, err := auth.ParseProxy(v)
		cfg.trustedProxies = append(cfg.trustedProxies, p)
		return err
	})
	fs.IntVar(&cfg.budgets.maxItems, "max-items", poller.DefaultMaxItems, "most items one version keeps; a page's further items are dropped with a warning on the source")
	maxAnswerMiB := fs.Int("max-answer-mib", api.DefaultMaxAnswerBytes>>20, "MiB one feed answer may hold in memory; a larger archive (max=, keyword queries) is streamed, any other larger answer refused, asking for fewer items")
	fs.IntVar(&cfg.budgets.heavyReads, "heavy-reads", api.DefaultHeavyReads(), "expensive reads (xpath, searches, long archives, the aggregate) served at once; more wait briefly, then get 503 with Retry-After")
	fs.DurationVar(&cfg.budgets.readTimeout, "read-timeout", defaultReadTimeout, "longest time to read one request, body included; a slower sender is cut off")
	fs.DurationVar(&cfg.budgets.writeTimeout, "write-timeout", defaultWriteTimeout, "longest time to handle and write one answer; a reader that stops reading is cut off")
	cacheMiB := fs.Int("cache-mib", 64, "MiB of rendered feed answers kept in memory; 0 turns the cache off")
	fs.IntVar(&cfg.tuning.Budget, "budget", 0, "polls per day that the budget policies (hourly, uniform, min-delay, min-missing, at-risk) share (default 24 per source)")
	fs.Float64Var(&cfg.tuning.C, "subscriber-weight", 0, "c in rank = expected new items × (1 + c × subscribers); 0 ignores subscribers")
	cfg.duplicates = dedup.DefaultConfig()
	storyWindow := func(v string) error {
		d, err := dynamo.ParseDuration(v)
		cfg.duplicates.Window = time.Duration(d)
		return err
	}
	fs.Func("dedup-story-window", fmt.Sprintf("how long after a copy of a story a new item can still join it, e.g. 72h or 3d (default %s)", dynamo.Duration(cfg.duplicates.Window)), storyWindow)
	fs.Float64Var(&cfg.duplicates.MinSimilarity, "dedup-min-similarity", 0, fmt.Sprintf("least weighted similarity, 0 to 1, of two items' texts for the text rule to find them one story (default %g)", dedup.DefaultThresholds.Text))
	var deprecated []string
	fs.Func("dedup-window", "deprecated: use --dedup-story-window", func(v string) error {
		deprecated = append(deprecated, "--dedup-window is deprecated: use --dedup-story-window, which it sets")
		return storyWindow(v)
	})
	legacyK := -1
	fs.Func("dedup-k", "deprecated: use --dedup-min-similarity (a Hamming distance of k bits of SimHash sets it to the similarity k estimates)", func(v string) error {
		k, err := strconv.Atoi(v)
		if err != nil || k < 0 || k > 64 {
			return fmt.Errorf("must be a number of bits from 0 to 64, not %q", v)
		}
		legacyK = k
		return nil
	})
	if err := fs.Parse(args); err != nil {
		cfg.help = errors.Is(err, flag.ErrHelp)
		return cfg, false
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(errOut, "dynamo serve: unexpected argument %q\n", fs.Arg(0))
		return cfg, false
	}
	if legacyK >= 0 {
		similarity := dedup.SimilarityOfDistance(legacyK)
		if explicit := flagSet(fs, "dedup-min-similarity"); explicit {
			deprecated = append(deprecated, "--dedup-k is deprecated and ignored beside --dedup-min-similarity")
		} else {
			cfg.duplicates.MinSimilarity = similarity
			deprecated = append(deprecated, fmt.Sprintf("--dedup-k is deprecated: near-duplicates are decided on their texts; "+
				"--dedup-k %d sets --dedup-min-similarity to %.2f, the similarity %d bits of SimHash estimate", legacyK, similarity, legacyK))
		}
	}
	for _, warning := range deprecated {
		fmt.Fprintf(errOut, "dynamo serve: %s\n", warning)
	}
	if err := cfg.duplicates.Validate(); err != nil {
		fmt.Fprintf(errOut, "dynamo serve: --dedup-story-window/--dedup-min-similarity: %v\n", err)
		return cfg, false
	}
	switch {
	case *cacheMiB < 0 || *cacheMiB > 1<<20:
		fmt.Fprintf(errOut, "dynamo serve: --cache-mib must be from 0 to %d, not %d\n", 1<<20, *cacheMiB)
		return cfg, false
	case *cacheMiB == 0:
		cfg.cacheBytes = -1
	default:
		cfg.cacheBytes = int64(*cacheMiB) << 20
	}
	switch {
	case cfg.budgets.maxItems < 1:
		fmt.Fprintf(errOut, "dynamo serve: --max-items must be at least 1, not %d\n", cfg.budgets.maxItems)
		return cfg, false
	case *maxAnswerMiB < 1 || *maxAnswerMiB > 1<<14:
		fmt.Fprintf(errOut, "dynamo serve: --max-answer-mib must be from 1 to %d, not %d\n", 1<<14, *maxAnswerMiB)
		return cfg, false
	case cfg.budgets.heavyReads < 1:
		fmt.Fprintf(errOut, "dynamo serve: --heavy-reads must be at least 1, not %d\n", cfg.budgets.heavyReads)
		return cfg, false
	case cfg.budgets.readTimeout < time.Second || cfg.budgets.writeTimeout < time.Second:
		fmt.Fprintf(errOut, "dynamo serve: --read-timeout and --write-timeout must be at least 1s, not %s and %s\n", cfg.budgets.readTimeout, cfg.budgets.writeTimeout)
		return cfg, false
	}
	cfg.budgets.maxAnswerBytes = int64(*maxAnswerMiB) << 20
	if err := cfg.tuning.Validate(); err != nil {
		fmt.Fprintf(errOut, "dynamo serve: --budget/--subscriber-weight: %v\n", err)
		return cfg, false
	}
	// The policy and the workers are the poller's, which starts after the
	// store is opened: checked here, a mistyped name is a mistake on the
	// command line (exit 2) that creates no store, and --workers 0 is not
	// taken silently for the default.
	if cfg.policy != "" && !slices.Contains(policy.Names(), cfg.policy) {
		fmt.Fprintf(errOut, "dynamo serve: --policy must be one of %s, not %q\n", strings.Join(policy.Names(), ", "), cfg.policy)
		return cfg, false
	}
	if cfg.workers < 1 {
		fmt.Fprintf(errOut, "dynamo serve: --workers must be at least 1, not %d\n", cfg.workers)
		return cfg, false
	}
	switch cfg.role {
	case "all", "api", "poller":
	default:
		fmt.Fprintf(errOut, "dynamo serve: --role must be all, api or poller, not %q\n", cfg.role)
		return cfg, false
	}
	if cfg.publicURL != "" {
		u, err := url.Parse(cfg.publicURL)
		if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" || u.RawQuery != "" || u.Fragment != "" || u.User != nil {
			fmt.Fprintf(errOut, "dynamo serve: --public-url must be an absolute http or https URL without query or fragment, such as https://feeds.example.org, not %q\n", cfg.publicURL)
			return cfg, false
		}
		cfg.publicURL = strings.TrimRight(cfg.publicURL, "/")
	}
	if cfg.uaContact != "" {
		u, err := url.Parse(cfg.uaContact)
		if err != nil || !(u.Scheme == "mailto" && u.Opaque != "" || (u.Scheme == "http" || u.Scheme == "https") && u.Host != "") ||
			strings.ContainsAny(cfg.uaContact, " ();\"\r\n") {
			fmt.Fprintf(errOut, "dynamo serve: --user-agent-contact must be an https:, http: or mailto: URL without spaces or parentheses, such as mailto:feeds@example.org, not %q\n", cfg.uaContact)
			return cfg, false
		}
	}
	cfg.db = storeDSN(cfg.db)
	if len(cfg.replicas) > 0 && cfg.role == "poller" {
		fmt.Fprintln(errOut, "dynamo serve: --db-replica answers reads, and a poller reads from the primary: use it with --role api or all")
		return cfg, false
	}
	if cfg.logFormat != "text" && cfg.logFormat != "json" {
		fmt.Fprintf(errOut, "dynamo serve: --log-format must be text or json, not %q\n", cfg.logFormat)
		return cfg, false
	}
	if cfg.demo {
		cfg.allowPrivate = true
	}
	return cfg, true
}

// newLogger is the log serve writes to w, at cfg's level and in its format.
func newLogger(cfg serveConfig, w io.Writer) *slog.Logger {
	opts := &slog.HandlerOptions{Level: cfg.logLevel}
	if cfg.logFormat == "json" {
		return slog.New(slog.NewJSONHandler(w, opts))
	}
	return slog.New(slog.NewTextHandler(w, opts))
}

func runServe(ctx context.Context, args []string, s stdio) int {
	cfg, ok := parseServeArgs(args, s.err)
	if !ok && cfg.help {
		return 0
	}
	if !ok {
		return 2
	}
	log := newLogger(cfg, s.err)
	if err := serve(ctx, cfg, log, nil); err != nil {
		log.Error("dynamo serve", "err", err)
		return 1
	}
	return 0
}

// serve runs until ctx ends, then shuts down gracefully: the HTTP server
// finishes its requests, the poller its polls, and leases are released.
// ready, when set, receives the listening address once requests are served.
func serve(ctx context.Context, cfg serveConfig, log *slog.Logger, ready chan<- string) error {
	if err := checkAdminToken(cfg, os.Getenv("DYNAMO_ADMIN_TOKEN")); err != nil {
		return err
	}
	// The address first: a process that cannot serve must not create an
	// embedded store's file (or migrate a database) on its way out.
	ln, err := net.Listen("tcp", cfg.addr)
	if errors.Is(err, syscall.EADDRINUSE) {
		// The first thing a second demo or a second instance meets.
		return fmt.Errorf("listen: %w: another process serves on %s; stop it, or give this one another address with --addr", err, cfg.addr)
	}
	if err != nil {
		return fmt.Errorf("listen: %w", err)
	}
	// The sources file is checked before the store is opened for the same
	// reason: a mistake in it must leave nothing behind.
	var sourcesData []byte
	if cfg.sourcesFile != "" {
		if sourcesData, err = readSourcesFile(cfg.sourcesFile, policy.Names()); err != nil {
			ln.Close()
			return err
		}
	}
	store, err := storage.Open(ctx, cfg.db, cfg.replicas...)
	if err != nil {
		ln.Close()
		return fmt.Errorf("open store: %w", err)
	}
	defer store.Close()
	// A store over read replicas logs each one that goes down or comes
	// back (docs/OPERATIONS.md, "Log lines").
	replicated, _ := store.(*postgres.Replicated)
	if replicated != nil {
		replicated.SetLogger(log)
	}

	client := pollfetch.New(pollfetch.Options{AllowPrivate: cfg.allowPrivate, HostGap: cfg.hostGap, UserAgent: pollfetch.UserAgent(cfg.uaContact)})
	// One reader of robots.txt per process, shared by polls and discovery.
	robotsTxt := robots.New(client, robots.Options{})
	m := metrics.New()
	// Every entry point registers and changes sources through svc: the
	// admin API, the web forms and the sources file.
	svc := &sources.Service{Store: store, Policies: policy.Names(), Resolve: sources.NewResolver(client, robotsTxt, discovery.SettingMemory{Store: store})}

	if cfg.demo {
		site, err := startDemoSite(ctx, store, cfg.demoEvery, cfg.demoPoll)
		if err != nil {
			ln.Close()
			return err
		}
		defer site.Close()
		if site.moved != "" {
			log.Warn("the demo site's last address is taken; its sources start again at a new one", "was", site.moved, "now", site.URL)
		}
		log.Info("demo site serving the example pages; news and wire gain a story every period", "url", site.URL, "period", site.every)
	}
	if cfg.sourcesFile != "" {
		if err := applySourcesFile(ctx, svc, cfg.sourcesFile, sourcesData, log); err != nil {
			ln.Close()
			return err
		}
	}

	var (
		p  *poller.Poller
		wg sync.WaitGroup
	)
	runCtx, cancel := context.WithCancel(ctx)
	defer cancel()
	errs := make(chan error, 3)
	ws := newWebSub(cfg, store, client, m, log)
	heavy := heavyGate(cfg)
	if cfg.role != "api" {
		p, err = newServePoller(runCtx, store, client, robotsTxt, m, cfg, pollerOwner(ln.Addr()), log, ws)
		if err != nil {
			ln.Close()
			return err
		}
	}
	if ws != nil {
		// An API process reads pushes with a poller of its own that
		// polls nothing: a push goes through the poll path.
		pusher := p
		if pusher == nil {
			if pusher, err = newServePoller(runCtx, store, client, robotsTxt, m, cfg, pollerOwner(ln.Addr()), log, ws); err != nil {
				ln.Close()
				return err
			}
		}
		if err := ws.subscribe(runCtx, pusher, heavy, &wg); err != nil {
			ln.Close()
			return err
		}
	}
	if p != nil {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if err := p.Run(runCtx); err != nil {
				errs <- fmt.Errorf("poller: %w", err)
			}
		}()
	}
	handler, err := serveHandler(runCtx, cfg, svc, p, client, m, log, &wg, ws, heavy)
	if err != nil {
		ln.Close()
		return err
	}
	if cfg.accessLog {
		handler = metrics.AccessLog(log.Handler(), handler)
	}
	readTimeout, writeTimeout := cfg.budgets.readTimeout, cfg.budgets.writeTimeout
	if readTimeout == 0 {
		readTimeout = defaultReadTimeout
	}
	if writeTimeout == 0 {
		writeTimeout = defaultWriteTimeout
	}
	srv := &http.Server{Handler: handler, ReadHeaderTimeout: 10 * time.Second, ReadTimeout: readTimeout, WriteTimeout: writeTimeout, IdleTimeout: 2 * time.Minute}
	wg.Add(1)
	go func() {
		defer wg.Done()
		if err := srv.Serve(ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
			errs <- fmt.Errorf("http: %w", err)
		}
	}()
	started := []any{"version", buildinfo.Read().String(), "store", storeKind(cfg.db), "addr", ln.Addr().String(), "role", cfg.role}
	if replicated != nil {
		started = append(started, "replicas", strings.Join(replicated.Replicas(), ","))
	}
	if p != nil {
		started = append(started, "policy", p.Policy())
	}
	if cfg.role != "poller" {
		started = append(started, "ui", "http://"+ln.Addr().String()+web.Prefix)
	}
	log.Info("dynamo serving", started...)
	if ready != nil {
		ready <- ln.Addr().String()
	}

	var failure error
	select {
	case <-ctx.Done():
	case failure = <-errs:
	}
	cancel()
	shutdown, done := context.WithTimeout(context.Background(), 30*time.Second)
	defer done()
	if err := srv.Shutdown(shutdown); err != nil {
		log.Warn("http shutdown", "err", err)
	}
	wg.Wait()
	log.Info("dynamo stopped")
	return failure
}

// minTokenLength is the shortest admin token serve accepts: guesses are
// limited per client (auth.Failures), but not across clients.
const minTokenLength = 16

// checkAdminToken refuses an admin token too short to resist guessing, and
// a public URL without one.
func checkAdminToken(cfg serveConfig, token string) error {
	if cfg.role == "poller" {
		return nil // no HTTP interface that changes anything
	}
	if token != "" && len(strings.TrimSpace(token)) < minTokenLength {
		return fmt.Errorf("DYNAMO_ADMIN_TOKEN has %d characters: an admin token needs at least %d (e.g. openssl rand -hex 16)", len(strings.TrimSpace(token)), minTokenLength)
	}
	if cfg.publicURL != "" && token == "" {
		return fmt.Errorf("--public-url %s makes Dynamo reachable from elsewhere, so changes need an admin token: set DYNAMO_ADMIN_TOKEN", cfg.publicURL)
	}
	return nil
}

// budgets are the bounds serve sets on anonymous work and on one version.
type budgets struct {
	maxItems                  int
	maxAnswerBytes            int64
	heavyReads                int
	readTimeout, writeTimeout time.Duration
}

// The slow-client bounds (docs/RELIABILITY.md, "Security"): a request must
// arrive, body included, within defaultReadTimeout, and its answer be
// written within defaultWriteTimeout, so that a sender at one byte a second
// or a reader that stops reading holds a connection and its memory no
// longer than that.
const (
	defaultReadTimeout  = 20 * time.Second
	defaultWriteTimeout = 60 * time.Second
)

// flagSet reports whether the command line set the flag name.
func flagSet(fs *flag.FlagSet, name string) bool {
	set := false
	fs.Visit(func(f *flag.Flag) { set = set || f.Name == name })
	return set
}

// pollerOwner names this process's poller in leases: the host name and
// the address it listens on. The kernel lets one live process listen on an
// address, and a restart with the same --addr takes the same name, so it
// takes back at once the leases its killed predecessor left (poller.Config.Owner).
func pollerOwner(addr net.Addr) string {
	host, _ := os.Hostname()
	return host + "/" + addr.String()
}

// newServePoller builds the poller with its detector of stories loaded from
// the store.
func newServePoller(ctx context.Context, store dynamo.Store, client *pollfetch.Client, robotsTxt *robots.Checker, m *metrics.Metrics, cfg serveConfig, owner string, log *slog.Logger, ws *webSub) (*poller.Poller, error) {
	dupCfg := cfg.duplicates
	if dupCfg == (dedup.Config{}) { // a configuration not read from flags
		dupCfg = dedup.DefaultConfig()
	}
	det, err := dedup.NewStories(dupCfg)
	if err != nil {
		return nil, err
	}
	if err := det.Load(ctx, store, time.Now().Add(-det.Config().Window)); err != nil {
		return nil, fmt.Errorf("load the window of stories: %w", err)
	}
	p, err := poller.New(poller.Config{
		Store:        store,
		Fetcher:      client,
		Owner:        owner,
		Robots:       robotsTxt,
		Workers:      cfg.workers,
		MaxItems:     cfg.budgets.maxItems,
		Policy:       cfg.policy,
		PolicyConfig: cfg.tuning,
		Duplicates:   det,
		OnPoll:       m.ObservePoll,
		OnBody:       ws.observe,
		Logger:       log,
	})
	if err != nil {
		return nil, err
	}
	return p, nil
}

// pollerOnlyMessage answers every path but the probes of a poller-only
// process.
const pollerOnlyMessage = "this process polls only (--role poller): it serves /healthz and /metrics; " +
	"the feeds, the admin API and the web interface are served by the processes of --role api or all"

// serveHandler is the HTTP interface for the role: the API and the web
// interface on one ServeMux, or for a poller-only process just /healthz and
// /metrics; every request is counted in the metrics under the route
// pattern it matched.
func serveHandler(ctx context.Context, cfg serveConfig, svc *sources.Service, p *poller.Poller, client *pollfetch.Client, m *metrics.Metrics, log *slog.Logger, wg *sync.WaitGroup, ws *webSub, heavy *limits.Gate) (http.Handler, error) {
	mux := http.NewServeMux()
	if cfg.role == "poller" {
		api.MountProbes(mux, svc.Store, m, log)
		// Anything else is served by the other processes: say so, rather
		// than the standard library's bare "404 page not found".
		mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
			http.Error(w, pollerOnlyMessage, http.StatusNotFound)
		})
		return m.Observe(httpcompress.Handler(mux)), nil
	}
	token := os.Getenv("DYNAMO_ADMIN_TOKEN")
	// One count of wrong tokens per client for the API and the forms; the
	// gate of expensive reads is serve's (heavyGate).
	failures := auth.NewFailures()
	apiCfg := api.Config{
		Store:          svc.Store,
		Policies:       svc.Policies,
		AdminToken:     token,
		TrustedProxies: cfg.trustedProxies,
		Failures:       failures,
		BaseURL:        cfg.publicURL,
		Hub:            ws.hubURL(),
		Resolve:        svc.Resolve,
		Metrics:        m,
		Logger:         log,
		CacheBytes:     cfg.cacheBytes,
		Heavy:          heavy,
		MaxAnswerBytes: cfg.budgets.maxAnswerBytes,
	}
	webCfg := web.Config{
		Store:           svc.Store,
		Policies:        svc.Policies,
		AdminToken:      token,
		PublicURL:       cfg.publicURL,
		TrustedProxies:  cfg.trustedProxies,
		Failures:        failures,
		Resolve:         svc.Resolve,
		Fetch:           web.FetchFrom(client),
		DisplayTimezone: cfg.displayZone,
		Logger:          log,
		Heavy:           heavy,
	}
	// A nil *poller.Poller stored in an interface is not a nil interface:
	// assign it only when there is one.
	if p != nil {
		apiCfg.Poller = p
		webCfg.Poller = p
	}
	srv, err := api.New(apiCfg)
	if err != nil {
		return nil, err
	}
	ui, err := web.New(webCfg)
	if err != nil {
		return nil, err
	}
	wg.Add(1)
	go func() {
		defer wg.Done()
		srv.Run(ctx)
	}()
	// The web interface's routes are "/", "/ui" and everything under
	// /ui/; the API's are the rest, with its plain-text 404 for any other
	// path. One mux holds both route lists, each written once in its
	// package.
	srv.Mount(mux)
	ui.Mount(mux)
	if err := ws.serveHub(ctx, srv, mux, wg); err != nil {
		return nil, err
	}
	// An operator's requests read the latest state, so that with read
	// replicas they never show a state older than the operator's own last
	// change, whichever process made it. Without replicas every read is
	// the primary's already; marking them would only keep operators (with
	// no admin token, every loopback client) off the answer cache.
	// (Outside Observe, which reads the pattern from the request the mux
	// was handed.)
	// A cached feed is answered before the routing (api.Server.Cached).
	observed := m.Observe(srv.Cached(httpcompress.Handler(mux)))
	replicated := len(cfg.replicas) > 0
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if replicated && ui.Operator(r) {
			r = r.WithContext(dynamo.WithLatestReads(r.Context()))
		}
		observed.ServeHTTP(w, r)
	}), nil
}

// storeKind names the store for the start-up log without its credentials.
// heavyGate is the process's one gate of expensive work (--heavy-reads):
// the API's and the pages' expensive reads, wraps, the playground and
// WebSub pushes take its slots.
func heavyGate(cfg serveConfig) *limits.Gate {
	n := cfg.budgets.heavyReads
	if n == 0 {
		n = api.DefaultHeavyReads()
	}
	return api.NewHeavyGate(n)
}

func storeKind(dsn string) string {
	if len(dsn) > 11 && (dsn[:11] == "postgres://" || (len(dsn) > 13 && dsn[:13] == "postgresql://")) {
		return "postgresql"
	}
	return "embedded " + dsn
}
