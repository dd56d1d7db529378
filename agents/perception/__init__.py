"""Vision backends: each maps (screenshot, subgoal, label hints, tier) to candidates."""
