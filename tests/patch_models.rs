mod model_fixtures;
use model_fixtures::*;

#[test]
fn survey() {
    for m in [BASELINE, SPLIT_SKIP, INPLACE, SKIP_ANON] {
        let p = load(m);
        for (name, s, calls) in baseline_scenarios() {
            let (_, stop) = run(&p, s, &calls);
            match stop {
                None => println!("{m} | {name} | clean"),
                Some(st) => println!(
                    "{m} | {name} | call {} {} | {:?} at {:?}",
                    st.call, st.text, st.failure.violations, st.failure.loc
                ),
            }
        }
    }
}
