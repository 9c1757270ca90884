import EddyCore

extension ConfigFile {
    /// `cookies:`, what cache fills do with clients' cookies, per origin (the first rule that
    /// matches a URL applying; with none, fills carry no cookie):
    ///
    ///     cookies:
    ///       - { prefix: /members/, forward: [CloudFront-Policy, CloudFront-Signature] }  # these names
    ///       - { host: "*.example.com", forward: all }                                   # every cookie
    ///       - { url: "https://shop.example.com/", bypass: true }    # a request with cookies is not cached
    static func cookieRules(_ value: Any, routes: [OriginRoute]) throws -> CookieRules {
        let key = "cookies"
        guard let list = value as? [[String: Any]] else {
            throw ConfigError(description: "\(key): expected a list of {prefix | host | url, forward | bypass}")
        }
        var rules: [CookieRules.Rule] = []
        for item in list {
            for k in item.keys where !["prefix", "host", "url", "forward", "bypass"].contains(k) {
                throw ConfigError(description: "\(key): unknown field '\(k)' (prefix, host, url, forward, bypass)")
            }
            let policy: CookiePolicy
            switch (item["forward"], item["bypass"]) {
            case let (word as String, nil) where word == "all": policy = .forward(nil)
            case let (names as [Any], nil) where !names.isEmpty && names.allSatisfy({ $0 is String }):
                policy = .forward(Set(names.compactMap { $0 as? String }))
            case (nil, true as Bool): policy = .bypass
            case (nil, false as Bool): policy = .strip
            default: throw ConfigError(description: "\(key): each rule needs forward (all or a list of cookie names) or bypass: true, not both")
            }
            let (prefix, host) = try ruleScope(item, key, routes: routes)
            rules.append(CookieRules.Rule(prefix: prefix, host: host, policy: policy))
        }
        return CookieRules(rules)
    }
}
