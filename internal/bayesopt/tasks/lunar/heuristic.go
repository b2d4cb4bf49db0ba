package lunar

import "math"

// heuristic is OpenAI's hand-written lander controller with its twelve
// constants exposed (the ROBOT code's heuristic_Controller): w = 2x for
// x in [0, 1]^12.
//
//	angle target = s0 w0 + s2 w1, clipped to [-w2, w2]
//	hover target = w3 |s0|
//	angle todo   = (angle target - s4) w4 - s5 w5
//	hover todo   = (hover target - s1) w6 - s3 w7
//	if a leg touches: angle todo = w8, hover todo = -s3 w9
//	action: main engine if hover todo > |angle todo| and > w10,
//	        else right engine if angle todo < -w11, left if > w11, else nothing.
func heuristic(s state, w *[12]float64) int {
	angleTarget := s[0]*w[0] + s[2]*w[1] // point towards the pad, against horizontal speed
	if angleTarget > w[2] {
		angleTarget = w[2]
	}
	if angleTarget < -w[2] {
		angleTarget = -w[2]
	}
	hoverTarget := w[3] * math.Abs(s[0]) // target height grows with horizontal offset

	angleTodo := (angleTarget-s[4])*w[4] - s[5]*w[5] // PD control of the angle
	hoverTodo := (hoverTarget-s[1])*w[6] - s[3]*w[7] // PD control of the height

	if s[6] != 0 || s[7] != 0 { // legs have contact: only damp the fall
		angleTodo = w[8]
		hoverTodo = -s[3] * w[9]
	}
	switch {
	case hoverTodo > math.Abs(angleTodo) && hoverTodo > w[10]:
		return actionMain
	case angleTodo < -w[11]:
		return actionRight
	case angleTodo > w[11]:
		return actionLeft
	}
	return actionNoop
}

// DefaultX is OpenAI's default heuristic as a point of the box:
// 0.5 * [0.5, 1, 0.4, 0.55, 0.5, 1, 0.5, 0.5, 0, 0.5, 0.05, 0.05].
var DefaultX = []float64{0.25, 0.5, 0.2, 0.275, 0.25, 0.5, 0.25, 0.25, 0, 0.25, 0.025, 0.025}

// episode runs one episode with seed and the heuristic with weights w = 2x,
// and returns its total reward and number of agent steps.
func episode(x []float64, seed uint64) (total float64, steps int) {
	var w [12]float64
	for i := range w {
		w[i] = 2 * x[i]
	}
	env, s := newEnv(seed)
	for {
		var r float64
		var done bool
		s, r, done = env.Step(heuristic(s, &w))
		total += r
		steps++
		if done {
			return total, steps
		}
	}
}
