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
	"os"
	"strconv"
	"sync"
	"time"

	"github.com/dynamo-feeds/dynamo"
	"github.com/dynamo-feeds/dynamo/api"
	"github.com/dynamo-feeds/dynamo/dedup"
	"github.com/dynamo-feeds/dynamo/discovery"
	"github.com/dynamo-feeds/dynamo/metrics"
	"github.com/dynamo-feeds/dynamo/poller"
	pollfetch "github.com/dynamo-feeds/dynamo/poller/fetch"
	"github.com/dynamo-feeds/dynamo/poller/policy"
	"github.com/dynamo-feeds/dynamo/sources"
	"github.com/dynamo-feeds/dynamo/storage"
	"github.com/dynamo-feeds/dynamo/web"
)

func init() {
	register("serve", "run the HTTP interface and the poller", runServe)
}

// serveConfig is what the serve command's flags say.
type serveConfig struct {
	addr         string
	db           string
	sourcesFile  string
	role         string
	allowPrivate bool
	demo         bool
	policy       string
	workers      int
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
	// hostGap, when set, replaces the fetcher's gap between requests to
	// one host (negative: none), for tests whose origins share 127.0.0.1.
	hostGap time.Duration
}

const serveUsage = `usage: dynamo serve [--addr 127.0.0.1:8080] [--db DSN] [--sources FILE]
                    [--role all|api|poller] [--allow-private] [--demo]

Serves the web interface (/ui/), the feeds and the admin API, and polls the
sources. --db (or DATABASE_URL) is a postgres:// URL or the embedded store's
file (default dynamo.db in the working directory). --demo serves the example
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
	fs.StringVar(&cfg.sourcesFile, "sources", "", "YAML or JSON file of sources to register or update at start")
	fs.StringVar(&cfg.role, "role", "all", "all, api (web interface, feeds and admin API; no polling) or poller (polling, with /healthz and /metrics)")
	fs.BoolVar(&cfg.allowPrivate, "allow-private", false, "allow fetching loopback, private and link-local addresses")
	fs.BoolVar(&cfg.demo, "demo", false, "serve and register the example pages (implies --allow-private)")
	fs.StringVar(&cfg.policy, "policy", "", "global scheduling policy until one is set through the API (default smart, or at-risk with --budget)")
	fs.IntVar(&cfg.workers, "workers", 8, "sources polled at once")
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
	if err := cfg.tuning.Validate(); err != nil {
		fmt.Fprintf(errOut, "dynamo serve: --budget/--subscriber-weight: %v\n", err)
		return cfg, false
	}
	switch cfg.role {
	case "all", "api", "poller":
	default:
		fmt.Fprintf(errOut, "dynamo serve: --role must be all, api or poller, not %q\n", cfg.role)
		return cfg, false
	}
	if cfg.db == "" {
		cfg.db = os.Getenv("DATABASE_URL")
	}
	if cfg.db == "" {
		cfg.db = "dynamo.db"
	}
	if cfg.demo {
		cfg.allowPrivate = true
	}
	return cfg, true
}

func runServe(ctx context.Context, args []string, s stdio) int {
	cfg, ok := parseServeArgs(args, s.err)
	if !ok {
		return 2
	}
	log := slog.New(slog.NewTextHandler(s.err, nil))
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
	store, err := storage.Open(ctx, cfg.db)
	if err != nil {
		return fmt.Errorf("open store: %w", err)
	}
	defer store.Close()

	client := pollfetch.New(pollfetch.Options{AllowPrivate: cfg.allowPrivate, HostGap: cfg.hostGap})
	m := metrics.New()
	// Every entry point registers and changes sources through svc: the
	// admin API, the web forms and the sources file.
	svc := &sources.Service{Store: store, Policies: policy.Names(), Resolve: sourceResolver(client, discovery.SettingMemory{Store: store})}

	ln, err := net.Listen("tcp", cfg.addr)
	if err != nil {
		return fmt.Errorf("listen: %w", err)
	}
	if cfg.demo {
		site, err := startDemoSite(ctx, store, cfg.demoEvery, cfg.demoPoll)
		if err != nil {
			ln.Close()
			return err
		}
		defer site.Close()
		log.Info("demo site serving the example pages; news and wire gain a story every period", "url", site.URL, "period", site.every)
	}
	if cfg.sourcesFile != "" {
		if err := applySourcesFile(ctx, svc, cfg.sourcesFile, log); err != nil {
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
	if cfg.role != "api" {
		p, err = newServePoller(runCtx, store, client, m, cfg, log)
		if err != nil {
			ln.Close()
			return err
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			if err := p.Run(runCtx); err != nil {
				errs <- fmt.Errorf("poller: %w", err)
			}
		}()
	}
	handler, err := serveHandler(runCtx, cfg, svc, p, client, m, log, &wg)
	if err != nil {
		ln.Close()
		return err
	}
	srv := &http.Server{Handler: handler, ReadHeaderTimeout: 10 * time.Second, IdleTimeout: 2 * time.Minute}
	wg.Add(1)
	go func() {
		defer wg.Done()
		if err := srv.Serve(ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
			errs <- fmt.Errorf("http: %w", err)
		}
	}()
	if cfg.role == "poller" {
		log.Info("dynamo serving", "addr", ln.Addr().String(), "role", cfg.role, "store", storeKind(cfg.db))
	} else {
		log.Info("dynamo serving", "addr", ln.Addr().String(), "role", cfg.role, "store", storeKind(cfg.db), "ui", "http://"+ln.Addr().String()+web.Prefix)
	}
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

// flagSet reports whether the command line set the flag name.
func flagSet(fs *flag.FlagSet, name string) bool {
	set := false
	fs.Visit(func(f *flag.Flag) { set = set || f.Name == name })
	return set
}

// newServePoller builds the poller with its detector of stories loaded from
// the store.
func newServePoller(ctx context.Context, store dynamo.Store, client *pollfetch.Client, m *metrics.Metrics, cfg serveConfig, log *slog.Logger) (*poller.Poller, error) {
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
		Workers:      cfg.workers,
		Policy:       cfg.policy,
		PolicyConfig: cfg.tuning,
		Duplicates:   det,
		OnPoll:       m.ObservePoll,
		Logger:       log,
	})
	if err != nil {
		return nil, err
	}
	return p, nil
}

// serveHandler is the HTTP interface for the role: the API and the web
// interface on one ServeMux, or for a poller-only process just /healthz and
// /metrics; every request is counted in the metrics under the route
// pattern it matched.
func serveHandler(ctx context.Context, cfg serveConfig, svc *sources.Service, p *poller.Poller, client *pollfetch.Client, m *metrics.Metrics, log *slog.Logger, wg *sync.WaitGroup) (http.Handler, error) {
	mux := http.NewServeMux()
	if cfg.role == "poller" {
		api.MountProbes(mux, svc.Store, m, log)
		return m.Observe(mux), nil
	}
	token := os.Getenv("DYNAMO_ADMIN_TOKEN")
	apiCfg := api.Config{
		Store:      svc.Store,
		Policies:   svc.Policies,
		AdminToken: token,
		Resolve:    svc.Resolve,
		Metrics:    m,
		Logger:     log,
		CacheBytes: cfg.cacheBytes,
	}
	webCfg := web.Config{
		Store:      svc.Store,
		Policies:   svc.Policies,
		AdminToken: token,
		Resolve:    svc.Resolve,
		Fetch:      web.FetchFrom(client),
		Logger:     log,
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
	return m.Observe(mux), nil
}

// storeKind names the store for the start-up log without its credentials.
func storeKind(dsn string) string {
	if len(dsn) > 11 && (dsn[:11] == "postgres://" || (len(dsn) > 13 && dsn[:13] == "postgresql://")) {
		return "postgresql"
	}
	return "embedded " + dsn
}
