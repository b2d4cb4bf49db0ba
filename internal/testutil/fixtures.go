package testutil

// Fixtures the tests of cmd and internal/cli share.

// TinyASConfig is a small campaign over every method: 8 settings x 2
// repeats on a 300-item synthetic pool; budget 13 in batches of 4 ends with
// a batch of 1.
const TinyASConfig = `task: tiny
seed: 3
methods: [random, one-step, eci, select, ens, qvs]
q: [0, 1, inf]
repeats: 2
budget: 13
batch: 4
eci: {thresholds: [0.5], fantasy: pessimistic}
select: {betas: [1], lambdas: [0.5], fantasy: optimistic}
ens: {fantasy: pessimistic}
pool:
  kind: synthetic
  synthetic: {n: 300, clusters: 6, positive_clusters: 2, k: 8}
`

// Kernel3 is a hand-checked 3 x 3 kernel (CSV): VS_1 = 2.1573004833739833.
const Kernel3 = "1,0.9,0\n0.9,1,0\n0,0,1\n"

// ToyMOFConfig is a discrete BayesOpt campaign on the candidate set
// WriteToyMOF writes (under mof/ beside the config).
const ToyMOFConfig = `task: mof
seed: 4
methods: [random, ucb, qvs]
q: [1, inf]
repeats: 2
budget: 8
init: 2
batch: 3
beta: 2
good_threshold: 15
data:
  format: kernel
  kernel: mof/kernel.csv
  table: mof/mofs.csv
  id_column: id
  objective_column: storage
  metric_columns: [energy_penalty]
`

// ObjectiveScript is a real child process for --objective-cmd: it counts
// its calls in $QVS_TEST_CALLS, sleeps 60 s on call $QVS_TEST_SLOW (after
// touching CALLS.slow), fails from call 2 on while the file $QVS_TEST_BROKEN
// exists, and prints -((a-0.3)^2 + (b-0.6)^2) per input row.
const ObjectiveScript = ObjectiveCalls + `awk -F, 'NR > 1 { printf "%.17g\n", -(($1 - 0.3)^2) - (($2 - 0.6)^2) }'
`

// ObjectiveCalls is ObjectiveScript's call counting, slow call and failure.
const ObjectiveCalls = `n=$(( $(cat "$QVS_TEST_CALLS" 2>/dev/null | wc -l) + 1 ))
echo x >> "$QVS_TEST_CALLS"
if [ -n "$QVS_TEST_SLOW" ] && [ "$n" -eq "$QVS_TEST_SLOW" ]; then touch "$QVS_TEST_CALLS.slow"; sleep 60; fi
if [ -n "$QVS_TEST_BROKEN" ] && [ -f "$QVS_TEST_BROKEN" ] && [ "$n" -ge 2 ]; then echo "sim crashed at call $n" >&2; exit 3; fi
`

// MixedSpace and MixedScript: a mixed space (a campaign's space.yaml) and its command, with ObjectiveScript's call counting and
// slow call; poly with C > 5 prints nan (a failed point in the records).
const (
	MixedSpace = `parameters:
  - {name: kernel, type: categorical, choices: [rbf, poly, sigmoid]}
  - {name: degree, lower: 2, upper: 4, type: int, when: {kernel: poly}}
  - {name: C, lower: 0.1, upper: 10, scale: log}
`
	MixedScript = ObjectiveCalls + `awk -F, 'NR > 1 { l = log($3) / log(10)
  if ($1 == "poly" && $3 > 5) { print "nan"; next }
  printf "%.17g\n", -(($1 == "poly" ? $2 : $1 == "rbf" ? 1 : 3) + l * l) }'
`
)
