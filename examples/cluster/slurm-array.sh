#!/bin/bash
# One shard of a qvs campaign per Slurm array task, all writing into one
# folder on a shared file system (docs/cluster.md). From the repository
# checkout (with ./qvs built by `make build`):
#
#   jid=$(sbatch --parsable examples/cluster/slurm-array.sh)
#   sbatch --dependency=afterok:$jid --wrap './qvs eval results/'
#
# The array size is the number of shards: --shard auto reads the task's
# index and the array's size from SLURM_ARRAY_TASK_ID, _MIN, _STEP and
# _COUNT. A resubmitted or requeued task resumes its runs; a task that
# finds a run held by another (a duplicate) waits for it.
#
# Environment (defaults: the rover campaign of the paper's Figure 3):
#   QVS     the qvs binary (./qvs)
#   CMD     the campaign command: bayesopt or as (bayesopt)
#   CONFIG  its config (configs/rover.yaml)
#   OUT     the shared results folder (results/rover)
#SBATCH --job-name=qvs-rover
#SBATCH --array=0-7
#SBATCH --cpus-per-task=2
#SBATCH --mem=2G
#SBATCH --time=01:00:00
#SBATCH --output=qvs-rover-%A_%a.log
set -euo pipefail
QVS=${QVS:-./qvs}
CMD=${CMD:-bayesopt}
CONFIG=${CONFIG:-configs/rover.yaml}
OUT=${OUT:-results/rover}
exec "$QVS" "$CMD" --config "$CONFIG" --out "$OUT" --shard auto \
	--workers "${SLURM_CPUS_PER_TASK:-1}" --quiet
