#!/bin/bash
# One shard of a qvs campaign per Slurm array task, all writing into one
# folder on a shared file system (docs/cluster.md). From the repository
# checkout (with ./qvs built by `make build`), submit with
#
#   jid=$(examples/cluster/slurm-array.sh)                  # the rover campaign
#   jid=$(CMD=as CONFIG=configs/bmg.yaml OUT=results/bmg examples/cluster/slurm-array.sh --seed 3)
#   sbatch --dependency=afterok:$jid --wrap './qvs eval results/'
#
# Run outside a job, the script submits itself as an array of SHARDS tasks
# named after OUT (job qvs-NAME, logs NAME-JOBID_TASK.log in LOGS, appended
# to across requeues) and prints the job id; inside an array task it runs
# shard SLURM_ARRAY_TASK_ID of SHARDS (--shard auto/SHARDS: the task id is
# the shard index). Arguments after the script are extra qvs flags.
#
# Rerun one task (shard 2) that failed or was cancelled:
#   ARRAY=2 examples/cluster/slurm-array.sh     (same CMD, CONFIG, OUT, SHARDS)
#   or: scontrol requeue JOBID_2
# Its finished runs are kept; unfinished ones resume from their records.
#
# Environment:
#   QVS     the qvs binary (./qvs)
#   CMD     the campaign command: bayesopt or as (bayesopt)
#   CONFIG  its config (configs/rover.yaml)
#   OUT     the shared results folder (results/rover)
#   SHARDS  the number of array tasks (8)
#   ARRAY   the task ids to submit (0-(SHARDS-1))
#   NAME    the job and log name (qvs-$(basename OUT))
#   LOGS    the folder of the task logs (logs)
#SBATCH --job-name=qvs
#SBATCH --cpus-per-task=2
#SBATCH --mem=2G
#SBATCH --time=01:00:00
#SBATCH --output=qvs-%A_%a.log
#SBATCH --open-mode=append
set -euo pipefail
QVS=${QVS:-./qvs}
CMD=${CMD:-bayesopt}
CONFIG=${CONFIG:-configs/rover.yaml}
OUT=${OUT:-results/rover}
SHARDS=${SHARDS:-8}
NAME=${NAME:-qvs-$(basename "$OUT")}
LOGS=${LOGS:-logs}

if [ -z "${SLURM_ARRAY_TASK_ID:-}" ] && [ -n "${SLURM_JOB_ID:-}" ]; then
	echo "slurm-array.sh: job $SLURM_JOB_ID is not an array: run the script itself to submit, or sbatch --array=0-$((SHARDS - 1))" >&2
	exit 2
fi
if [ -z "${SLURM_ARRAY_TASK_ID:-}" ]; then
	# Submit: the environment above goes with the job (sbatch --export=ALL).
	mkdir -p "$LOGS"
	export QVS CMD CONFIG OUT SHARDS NAME LOGS
	exec sbatch --parsable --array="${ARRAY:-0-$((SHARDS - 1))}" --job-name="$NAME" \
		--output="$LOGS/$NAME-%A_%a.log" --open-mode=append "$0" "$@"
fi
exec "$QVS" "$CMD" --config "$CONFIG" --out "$OUT" --shard "auto/$SHARDS" \
	--workers "${SLURM_CPUS_PER_TASK:-1}" --quiet "$@"
