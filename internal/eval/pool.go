package eval

import (
	"context"
	"fmt"
	"hash/fnv"
	"path/filepath"
	"strconv"

	"go.yaml.in/yaml/v3"

	"github.com/qvs-dev/qvs/internal/datasets"
	"github.com/qvs-dev/qvs/internal/fileio"
)

// loadPool reloads an active-search campaign's pool from the pool: section
// of its config.yaml.
func loadPool(c *Campaign, opts Options) (*datasets.Pool, error) {
	section, ok := c.Config["pool"]
	if !ok {
		return nil, fmt.Errorf("%s has no pool: section", filepath.Join(c.Dir, "config.yaml"))
	}
	b, err := yaml.Marshal(section)
	if err != nil {
		return nil, err
	}
	var cfg datasets.Config
	if err := yaml.Unmarshal(b, &cfg); err != nil {
		return nil, fmt.Errorf("%s: pool: section: %w", filepath.Join(c.Dir, "config.yaml"), err)
	}
	pool, err := datasets.Load(cfg, opts.DataDir, opts.CacheDir, opts.Workers)
	if err != nil {
		return nil, err
	}
	// The queries index the pool the campaign ran on: check it is the same.
	for _, r := range c.Runs {
		if p, err := strconv.Atoi(r["positives"]); err == nil && p > pool.PositiveCount() {
			return nil, fmt.Errorf("run %s found %d positives but the reloaded pool has %d: not the campaign's pool", r["key"], p, pool.PositiveCount())
		}
	}
	return pool, nil
}

// queryScatter loads the pool (through opts.Pool), its cached PCA, and draws
// queryScatterFigure.
func queryScatter(ctx context.Context, c *Campaign, base string, opts Options) ([]string, error) {
	load := opts.Pool
	if load == nil {
		load = loadPool
	}
	pool, err := load(c, opts)
	if err != nil {
		return nil, fmt.Errorf("cannot reload the pool: %w", err)
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	e, err := cachedPoolEmbedding(c, pool, opts.CacheDir)
	if err != nil {
		return nil, err
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	return queryScatterFigure(c, e, base, opts.FigureFormats)
}

// cachedPoolEmbedding returns the pool's PCA embedding, cached under
// CACHE/eval/pca-HASH.csv with HASH of the campaign's pool config and the
// pool's size and labels (empty cacheDir: no cache).
func cachedPoolEmbedding(c *Campaign, pool *datasets.Pool, cacheDir string) (*embedding, error) {
	h := fnv.New64a()
	cfg, _ := yaml.Marshal(c.Config["pool"])
	fmt.Fprintf(h, "%s\x00%s\x00%d\x00", pool.Name, cfg, pool.Len())
	for _, l := range pool.Labels {
		if l {
			h.Write([]byte{1})
		} else {
			h.Write([]byte{0})
		}
	}
	var path string
	if cacheDir != "" {
		path = filepath.Join(cacheDir, "eval", fmt.Sprintf("pca-%016x.csv", h.Sum64()))
		if exists(path) {
			if e, err := readMDS(path); err == nil && len(e.X) == pool.Len() {
				return e, nil
			}
		}
	}
	e, err := poolEmbedding(pool)
	if err != nil {
		return nil, err
	}
	if path != "" {
		rows := make([][]string, len(e.X))
		for i := range rows {
			rows[i] = []string{fmt.Sprint(i), "", fullFloat(e.X[i]), fullFloat(e.Y[i]), fullFloat(e.Value[i])}
		}
		fileio.WriteCacheCSV(path, []string{"index", "id", "x", "y", "objective"}, rows)
	}
	return e, nil
}
