"""A small Chinese/Japanese ↔ English lexicon of software-work vocabulary (enhanced recall).

Reasonix reaches cross-language facts only through ``keywords`` that the writer
remembered to add. This table bridges the common case without a model: each group
lists equivalent surface forms; a query form found in a group lets the other forms
match as one *concept* (counted once by the strong-match gate, scored below a real
word match). English forms list their inflections explicitly, so no stemmer guesses.

Keep it small and boring: entries are words a coding agent's memory actually holds.
"""

from __future__ import annotations

__all__ = ["LEXICON"]

_RAW = """
数据库|資料庫|データベース = database databases db
迁移|遷移|移行|マイグレーション = migration migrations migrate migrates migrated migrating
部署|デプロイ = deploy deploys deployed deploying deployment deployments
发布|發布|リリース = release releases released releasing publish published publishing
回滚|ロールバック = rollback rollbacks roll back rolled back
测试|測試|テスト = test tests testing tested
单元测试 = unit test unit tests
集成测试|結合テスト = integration test integration tests
缓存|快取|キャッシュ = cache caches cached caching
日志|日誌|ログ = log logs logging logger
配置|設定 = config configs configuration configure configured settings
依赖|依賴|依存 = dependency dependencies deps
安装|安裝|インストール = install installs installed installing installation
包管理器|パッケージマネージャ = package manager package managers
构建|構建|ビルド = build builds building built
编译|コンパイル = compile compiles compiled compiler compilation
分支|ブランチ = branch branches
合并|マージ = merge merges merged merging
提交|コミット = commit commits committed
仓库|倉庫|リポジトリ = repository repositories repo repos
版本|バージョン = version versions
端口|ポート = port ports
密钥|秘钥|キー = secret secrets api key api keys
令牌|トークン = token tokens
环境变量|環境變數|環境変数 = environment variable environment variables env var env vars
环境|環境 = environment environments env
预发|预发布|ステージング = staging
生产环境|本番 = production prod
服务器|サーバー = server servers
接口 = api apis interface endpoint endpoints
认证|認證|認証 = auth authentication authenticate
授权|認可 = authorization authorize
权限|権限 = permission permissions
登录|ログイン = login log in sign in
用户|使用者|ユーザー = user users
密码|パスワード = password passwords
性能|パフォーマンス = performance
内存|メモリ = ram oom memory leak memory usage
超时|タイムアウト = timeout timeouts timed out
重试|リトライ = retry retries retried retrying
并发|並行 = concurrency concurrent
线程|スレッド = thread threads
进程|プロセス = process processes
队列|キュー = queue queues
索引|インデックス = index indexes indices indexing
查询|クエリ = query queries
搜索|検索 = search searching
错误|報錯|エラー = error errors
异常|例外 = exception exceptions
崩溃|クラッシュ = crash crashes crashed
调试|デバッグ = debug debugging
文档|ドキュメント = docs documentation document
目录|ディレクトリ = directory directories folder folders
文件|ファイル = file files
脚本|スクリプト = script scripts
命令|コマンド = command commands
格式化|フォーマット = format formatter formatting
代码风格|コードスタイル = code style
代码审查|コードレビュー = code review
前端|フロントエンド = frontend front end
后端|バックエンド = backend back end
容器|コンテナ = container containers
镜像|イメージ = image images docker image
集群|クラスター = cluster clusters
监控|監視 = monitoring monitor metrics
告警|アラート = alert alerts alerting
备份|バックアップ = backup backups
定时任务|クーロン = cron cron job scheduled job
流水线|パイプライン = pipeline pipelines ci
持续集成 = continuous integration ci
证书|証明書 = certificate certificates cert certs tls
域名|ドメイン = domain domains
网关|ゲートウェイ = gateway
负载均衡|ロードバランサ = load balancer load balancing
代理|プロキシ = proxy proxies
请求|リクエスト = request requests
响应|レスポンス = response responses
表结构|スキーマ = schema schemas
字段|フィールド = field fields column columns
主键 = primary key
外键 = foreign key
事务|トランザクション = transaction transactions
连接池|コネクションプール = connection pool pool size
连接|接続 = connection connections
锁|ロック = lock locks locking lockfile
锁文件 = lockfile lock file
格式 = format
命名|命名規則 = naming naming convention
注释|コメント = comment comments
类型检查|型チェック = type check type checking typecheck mypy
静态检查|リント = lint linter linting
依赖升级 = dependency upgrade upgrade dependencies
升级|アップグレード = upgrade upgrades upgraded
降级 = downgrade downgraded
弃用|非推奨 = deprecated deprecate deprecation
兼容|互換 = compatible compatibility
加密|暗号化 = encrypt encrypted encryption
签名|署名 = signature signing signed
会话|セッション = session sessions
中间件|ミドルウェア = middleware
路由|ルーティング = route routes routing router
模板|テンプレート = template templates
插件|プラグイン = plugin plugins
国际化 = i18n internationalization localization
时区|タイムゾーン = timezone time zone
编码|エンコーディング = encoding charset
图片|画像 = image picture
上传|アップロード = upload uploads
下载|ダウンロード = download downloads
邮件|メール = email emails mail
通知|通知 = notification notifications notify
支付|決済 = payment payments
订单|注文 = order orders
发票|請求書 = invoice invoices
价格|価格 = price pricing
报表|レポート = report reports
工作区|ワークスペース = workspace
偏好|好み = preference preferences prefer
约定|規約 = convention conventions
规则|ルール = rule rules
"""


def _parse(raw: str) -> tuple[tuple[tuple[str, ...], tuple[str, ...]], ...]:
    groups = []
    for line in raw.strip().splitlines():
        left, right = line.split("=", 1)
        cjk = tuple(w.strip() for w in left.split("|") if w.strip())
        # English forms are separated by runs of two spaces? No: single words, except
        # known multiword forms, which we recover greedily below.
        groups.append((cjk, tuple(_english_forms(right.strip()))))
    return tuple(groups)


_MULTI = {
    "roll back", "rolled back", "unit test", "unit tests", "integration test", "integration tests",
    "package manager", "package managers", "api key", "api keys", "environment variable",
    "environment variables", "env var", "env vars", "log in", "sign in", "timed out", "code style",
    "code review", "front end", "back end", "docker image", "cron job", "scheduled job",
    "continuous integration", "load balancer", "load balancing", "primary key", "foreign key",
    "connection pool", "pool size", "lock file", "naming convention", "type check", "type checking",
    "upgrade dependencies", "time zone", "memory leak", "memory usage",
}


def _english_forms(text: str) -> list[str]:
    words = text.split()
    out: list[str] = []
    i = 0
    while i < len(words):
        if i + 1 < len(words) and f"{words[i]} {words[i + 1]}" in _MULTI:
            out.append(f"{words[i]} {words[i + 1]}")
            i += 2
        else:
            out.append(words[i])
            i += 1
    return out


LEXICON = _parse(_RAW)
"""``((cjk forms...), (english forms...))`` groups."""
