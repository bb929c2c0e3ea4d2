pub fn name() -> &'static str { "new" }
