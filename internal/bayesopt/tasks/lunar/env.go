package lunar

import (
	"math"
	"math/rand/v2"

	"github.com/ByteArena/box2d"
)

// Constants of gym's LunarLander-v2, in pixels where the
// original uses pixels; SCALE converts to Box2D units.
const (
	fps             = 50
	scale           = 30.0 // pixels per Box2D unit
	mainEnginePower = 13.0
	sideEnginePower = 0.6
	// initialRandom bounds the random force applied to the lander at reset;
	// the ROBOT/qVS code uses 1500 ("harder") instead of gym's 1000.
	initialRandom = 1500.0
	// maxSteps caps an episode; the step that passes it ends the episode
	// with reward -100 (the original's timestep counter, which also counts
	// the reset step, gives the agent at most 1000 steps).
	maxSteps = 1000

	legAway          = 20
	legDown          = 18
	legW, legH       = 2, 8
	legSpringTorque  = 40
	sideEngineHeight = 14.0
	sideEngineAway   = 12.0
	viewportW        = 600
	viewportH        = 400
	chunks           = 11
)

// landerPoly is the lander hull in pixels.
var landerPoly = [][2]float64{{-14, +17}, {-17, 0}, {-17, -10}, {+17, -10}, {+17, 0}, {+14, +17}}

// Collision categories, set explicitly on every fixture (MakeB2FixtureDef
// leaves them 0, and a zero mask collides with nothing: the lander would
// fall through the ground).
const (
	categoryGround = 0x0001
	categoryLander = 0x0010
	categoryLeg    = 0x0020
)

// Actions of the discrete lander.
const (
	actionNoop  = 0
	actionLeft  = 1 // fire the left orientation engine
	actionMain  = 2 // fire the main engine
	actionRight = 3 // fire the right orientation engine
)

// state is gym's 8-dimensional observation: position (x, y) relative to the
// pad, velocity (vx, vy), angle, angular velocity, and leg contacts (0 or 1).
type state [8]float64

// env is one lander episode. Not safe for concurrent use; every episode owns
// its own Box2D world and random generator.
type env struct {
	rng        *rand.Rand
	world      box2d.B2World
	lander     *box2d.B2Body
	legs       [2]*box2d.B2Body
	legContact [2]bool
	gameOver   bool
	helipadY   float64
	// Terrain is the polyline of the ground (11 points), for plots.
	Terrain     [][2]float64
	prevShaping float64
	havePrev    bool
	timestep    int
}

// contactDetector is gym's ContactDetector: the lander body touching
// anything ends the game; legs record ground contact.
type contactDetector struct{ env *env }

func (c contactDetector) BeginContact(contact box2d.B2ContactInterface) {
	a, b := contact.GetFixtureA().GetBody(), contact.GetFixtureB().GetBody()
	if c.env.lander == a || c.env.lander == b {
		c.env.gameOver = true
	}
	for i, leg := range c.env.legs {
		if leg == a || leg == b {
			c.env.legContact[i] = true
		}
	}
}

func (c contactDetector) EndContact(contact box2d.B2ContactInterface) {
	a, b := contact.GetFixtureA().GetBody(), contact.GetFixtureB().GetBody()
	for i, leg := range c.env.legs {
		if leg == a || leg == b {
			c.env.legContact[i] = false
		}
	}
}

func (contactDetector) PreSolve(box2d.B2ContactInterface, box2d.B2Manifold)         {}
func (contactDetector) PostSolve(box2d.B2ContactInterface, *box2d.B2ContactImpulse) {}

// uniform is numpy's uniform(lo, hi) on Go's generator.
func (e *env) uniform(lo, hi float64) float64 { return lo + (hi-lo)*e.rng.Float64() }

// newEnv resets a new episode with the given seed (Go's PCG generator seeded
// with (seed, 0)) and returns it with the first observation. As in gym, the
// reset takes one no-op step whose reward is not counted.
func newEnv(seed uint64) (*env, state) {
	box2dOnce.Do(warmUpBox2D)
	e := &env{rng: rand.New(rand.NewPCG(seed, 0))}
	e.world = box2d.MakeB2World(box2d.MakeB2Vec2(0, -10))
	e.world.SetContactListener(contactDetector{e})

	w := viewportW / scale
	h := viewportH / scale

	// Terrain: 12 random heights (one more than used, as gym draws), the
	// five around the pad flattened, then a 3-point smoothing.
	var height [chunks + 1]float64
	for i := range height {
		height[i] = e.uniform(0, h/2)
	}
	var chunkX [chunks]float64
	for i := range chunkX {
		chunkX[i] = w / (chunks - 1) * float64(i)
	}
	e.helipadY = h / 4
	for i := chunks/2 - 2; i <= chunks/2+2; i++ {
		height[i] = e.helipadY
	}
	var smoothY [chunks]float64
	for i := range smoothY {
		prev := height[(i-1+len(height))%len(height)] // height[-1] is the last entry in Python
		smoothY[i] = 0.33 * (prev + height[i] + height[i+1])
	}

	bd := box2d.MakeB2BodyDef()
	moon := e.world.CreateBody(&bd)
	groundFilter := box2d.B2Filter{CategoryBits: categoryGround, MaskBits: 0xFFFF}
	addEdge := func(p1, p2 box2d.B2Vec2, friction float64) {
		edge := box2d.MakeB2EdgeShape()
		edge.Set(p1, p2)
		fd := box2d.MakeB2FixtureDef()
		fd.Shape = &edge
		fd.Density = 0
		fd.Friction = friction
		fd.Filter = groundFilter
		moon.CreateFixtureFromDef(&fd)
	}
	addEdge(box2d.MakeB2Vec2(0, 0), box2d.MakeB2Vec2(w, 0), 0.2) // pybox2d's default friction
	for i := 0; i < chunks-1; i++ {
		addEdge(box2d.MakeB2Vec2(chunkX[i], smoothY[i]), box2d.MakeB2Vec2(chunkX[i+1], smoothY[i+1]), 0.1)
	}
	e.Terrain = make([][2]float64, chunks)
	for i := range e.Terrain {
		e.Terrain[i] = [2]float64{chunkX[i], smoothY[i]}
	}

	initialY := viewportH / scale
	bd = box2d.MakeB2BodyDef()
	bd.Type = box2d.B2BodyType.B2_dynamicBody
	bd.Position = box2d.MakeB2Vec2(viewportW/scale/2, initialY)
	e.lander = e.world.CreateBody(&bd)
	verts := make([]box2d.B2Vec2, len(landerPoly))
	for i, v := range landerPoly {
		verts[i] = box2d.MakeB2Vec2(v[0]/scale, v[1]/scale)
	}
	hull := box2d.MakeB2PolygonShape()
	hull.Set(verts, len(verts))
	fd := box2d.MakeB2FixtureDef()
	fd.Shape = &hull
	fd.Density = 5.0
	fd.Friction = 0.1
	fd.Restitution = 0
	fd.Filter = box2d.B2Filter{CategoryBits: categoryLander, MaskBits: categoryGround} // collide only with ground
	e.lander.CreateFixtureFromDef(&fd)
	e.lander.ApplyForceToCenter(box2d.MakeB2Vec2(
		e.uniform(-initialRandom, initialRandom),
		e.uniform(-initialRandom, initialRandom),
	), true)

	for k, i := range []float64{-1, +1} {
		bd := box2d.MakeB2BodyDef()
		bd.Type = box2d.B2BodyType.B2_dynamicBody
		bd.Position = box2d.MakeB2Vec2(viewportW/scale/2-i*legAway/scale, initialY)
		bd.Angle = i * 0.05
		leg := e.world.CreateBody(&bd)
		box := box2d.MakeB2PolygonShape()
		box.SetAsBox(legW/scale, legH/scale)
		fd := box2d.MakeB2FixtureDef()
		fd.Shape = &box
		fd.Density = 1.0
		fd.Friction = 0.2 // pybox2d's default
		fd.Restitution = 0
		fd.Filter = box2d.B2Filter{CategoryBits: categoryLeg, MaskBits: categoryGround}
		leg.CreateFixtureFromDef(&fd)

		rjd := box2d.MakeB2RevoluteJointDef()
		rjd.BodyA = e.lander
		rjd.BodyB = leg
		rjd.LocalAnchorA = box2d.MakeB2Vec2(0, 0)
		rjd.LocalAnchorB = box2d.MakeB2Vec2(i*legAway/scale, legDown/scale)
		rjd.EnableMotor = true
		rjd.EnableLimit = true
		rjd.MaxMotorTorque = legSpringTorque
		rjd.MotorSpeed = 0.3 * i // low enough not to jump back into the sky
		if i == -1 {
			rjd.LowerAngle = 0.9 - 0.5 // gym's angles, within which the legs may travel
			rjd.UpperAngle = 0.9
		} else {
			rjd.LowerAngle = -0.9
			rjd.UpperAngle = -0.9 + 0.5
		}
		e.world.CreateJoint(&rjd)
		e.legs[k] = leg
	}

	s, _, _ := e.Step(actionNoop) // counts towards maxSteps, as in the original
	return e, s
}

// Step applies one action for 1/FPS seconds and returns the observation, the
// reward and whether the episode ended: -100 for a crash, flying off screen
// or passing maxSteps; +100 when the lander comes to rest (falls asleep).
func (e *env) Step(action int) (state, float64, bool) {
	angle := e.lander.GetAngle()
	tip := [2]float64{math.Sin(angle), math.Cos(angle)}
	side := [2]float64{-tip[1], tip[0]}
	// Two dispersion draws every step, fired or not, as gym does.
	dispersion := [2]float64{e.uniform(-1, 1) / scale, e.uniform(-1, 1) / scale}

	mPower := 0.0
	if action == actionMain {
		mPower = 1.0
		ox := tip[0]*(4/scale+2*dispersion[0]) + side[0]*dispersion[1] // 4 is a bit downwards, +-2 randomness
		oy := -tip[1]*(4/scale+2*dispersion[0]) - side[1]*dispersion[1]
		pos := e.lander.GetPosition()
		impulsePos := box2d.MakeB2Vec2(pos.X+ox, pos.Y+oy)
		// The exhaust particle of gym is cosmetic (it collides only with the
		// ground) and is not simulated.
		e.lander.ApplyLinearImpulse(box2d.MakeB2Vec2(-ox*mainEnginePower*mPower, -oy*mainEnginePower*mPower), impulsePos, true)
	}
	sPower := 0.0
	if action == actionLeft || action == actionRight {
		direction := float64(action - 2)
		sPower = 1.0
		ox := tip[0]*dispersion[0] + side[0]*(3*dispersion[1]+direction*sideEngineAway/scale)
		oy := -tip[1]*dispersion[0] - side[1]*(3*dispersion[1]+direction*sideEngineAway/scale)
		pos := e.lander.GetPosition()
		impulsePos := box2d.MakeB2Vec2(pos.X+ox-tip[0]*17/scale, pos.Y+oy+tip[1]*sideEngineHeight/scale)
		e.lander.ApplyLinearImpulse(box2d.MakeB2Vec2(-ox*sideEnginePower*sPower, -oy*sideEnginePower*sPower), impulsePos, true)
	}

	e.world.Step(1.0/fps, 6*30, 2*30)

	pos := e.lander.GetPosition()
	vel := e.lander.GetLinearVelocity()
	var s state
	s[0] = (pos.X - viewportW/scale/2) / (viewportW / scale / 2)
	s[1] = (pos.Y - (e.helipadY + legDown/scale)) / (viewportH / scale / 2)
	s[2] = vel.X * (viewportW / scale / 2) / fps
	s[3] = vel.Y * (viewportH / scale / 2) / fps
	s[4] = e.lander.GetAngle()
	s[5] = 20.0 * e.lander.GetAngularVelocity() / fps
	if e.legContact[0] {
		s[6] = 1
	}
	if e.legContact[1] {
		s[7] = 1
	}

	// Potential-based shaping: 10 points per leg contact, so that losing
	// contact after landing costs reward again.
	shaping := -100*math.Sqrt(s[0]*s[0]+s[1]*s[1]) -
		100*math.Sqrt(s[2]*s[2]+s[3]*s[3]) -
		100*math.Abs(s[4]) + 10*s[6] + 10*s[7]
	reward := 0.0
	if e.havePrev {
		reward = shaping - e.prevShaping
	}
	e.prevShaping, e.havePrev = shaping, true
	reward -= mPower * 0.30 // fuel: about -30 for a heuristic landing
	reward -= sPower * 0.03

	e.timestep++
	done := false
	if e.gameOver || math.Abs(s[0]) >= 1.0 || e.timestep > maxSteps {
		done, reward = true, -100
	}
	if !e.lander.IsAwake() {
		done, reward = true, +100
	}
	// gym hands the controller float32 observations.
	for i := range s {
		s[i] = float64(float32(s[i]))
	}
	return s, reward, done
}
