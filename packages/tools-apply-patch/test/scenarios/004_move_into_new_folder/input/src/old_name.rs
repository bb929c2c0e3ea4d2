pub fn name() -> &'static str { "old" }
